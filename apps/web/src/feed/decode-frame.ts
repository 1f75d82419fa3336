import { parseSessionEvent, type SessionEvent, SessionProjection } from '@agentwire/contracts';
import type { SseFrame } from './sse-reader.ts';

/** What one frame of `GET /sessions/:id/events` means to the page. */
export type FeedItem =
  | { readonly kind: 'events'; readonly events: readonly SessionEvent[] }
  | { readonly kind: 'snapshot'; readonly projection: SessionProjection; readonly asOfSeq: number }
  | { readonly kind: 'error'; readonly code: string; readonly message: string }
  | { readonly kind: 'invalid'; readonly reason: string };

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function events(list: readonly unknown[]): FeedItem {
  const parsed: SessionEvent[] = [];
  for (const raw of list) {
    const result = parseSessionEvent(raw);
    if (!result.ok) return { kind: 'invalid', reason: result.error.message };
    parsed.push(result.event);
  }
  return { kind: 'events', events: parsed };
}

/**
 * Decodes one frame, checking every event with the contracts' parser (parse at the
 * boundary). Unnamed frames carry one event envelope (docs/decisions/0092) or a batch
 * `{ fromSeq, toSeq, events }` (R15.2); `snapshot` carries `{ projection, asOfSeq }`
 * (0103); `error` carries `{ code, message }` and the server ends the stream after it.
 */
export function decodeFrame(frame: SseFrame): FeedItem {
  const body = parseJson(frame.data) as Record<string, unknown> | undefined;
  if (body === undefined || body === null || typeof body !== 'object') {
    return { kind: 'invalid', reason: 'frame data is not a JSON object' };
  }
  if (frame.event === 'snapshot') {
    const projection = SessionProjection.safeParse(body.projection);
    const asOfSeq = body.asOfSeq;
    if (!projection.success || typeof asOfSeq !== 'number') {
      return { kind: 'invalid', reason: 'snapshot frame without a projection and asOfSeq' };
    }
    return { kind: 'snapshot', projection: projection.data, asOfSeq };
  }
  if (frame.event === 'error') {
    return {
      kind: 'error',
      code: String(body.code ?? 'unknown'),
      message: String(body.message ?? 'the stream failed'),
    };
  }
  if (frame.event !== undefined && frame.event !== 'message') {
    return { kind: 'invalid', reason: `unknown frame type ${frame.event}` };
  }
  return Array.isArray(body.events) ? events(body.events) : events([body]);
}
