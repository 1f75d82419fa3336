import {
  isTransientEventType,
  Message,
  Part,
  type SessionEvent,
  type SessionProjection,
} from '@agentwire/contracts';
import {
  hydrateTranscript,
  rebuildProjection,
  type TranscriptEntry,
  transcriptView,
} from '@agentwire/domain';
import { loadTranscript } from '@agentwire/store';
import type { StoreDb } from '../nats/session-loader.ts';

/** What the wire left open, and what it mentioned after settling it (issue 20). */
interface WireSettlement {
  /** Request ids of `permission_requested` with no later resolved or denied event. */
  readonly openRequests: readonly string[];
  /** Tool call ids scheduled with no later result or error. */
  readonly openCalls: readonly string[];
  /** Tool call ids scheduled whose batch never completed. */
  readonly unbatchedCalls: readonly string[];
  /** Events that name a request or call after the event that settled it. */
  readonly laterMentions: readonly { readonly type: string; readonly id: string }[];
  /** How each request ended: `allow`, or the denial's reason. */
  readonly requestEnds: ReadonlyMap<string, string>;
  /** How each call ended: `completed`, or `error` with the error's code. */
  readonly callEnds: ReadonlyMap<string, { status: 'completed' | 'error'; code?: string }>;
}

/** The request id and tool call id an event names, if any. */
function namedIds(e: SessionEvent): { requestId?: string; toolCallId?: string } {
  const p = e.payload as { requestId?: unknown; toolCallId?: unknown };
  return {
    ...(typeof p.requestId === 'string' ? { requestId: p.requestId } : {}),
    ...(typeof p.toolCallId === 'string' ? { toolCallId: p.toolCallId } : {}),
  };
}

/**
 * Folds a session's events as a frontend would: a request is open from its
 * `permission_requested` until a `permission_resolved` or `permission_denied` names it, a
 * tool call from `tool_call_scheduled` until its result or error, and until a
 * `tool_batch_complete` lists it.
 */
export function wireSettlement(events: readonly SessionEvent[]): WireSettlement {
  const requests = new Map<string, string>();
  const requestEnds = new Map<string, string>();
  const calls = new Set<string>();
  const unbatched = new Set<string>();
  const callEnds = new Map<string, { status: 'completed' | 'error'; code?: string }>();
  const settled = new Set<string>();
  const laterMentions: { type: string; id: string }[] = [];
  for (const e of events) {
    const { requestId, toolCallId } = namedIds(e);
    for (const id of [requestId, toolCallId]) {
      if (id !== undefined && settled.has(id)) laterMentions.push({ type: e.type, id });
    }
    if (e.type === 'permission_requested') requests.set(requestId ?? '', e.payload.toolCallId);
    if (e.type === 'permission_resolved' || e.type === 'permission_denied') {
      const id = requestId ?? '';
      requests.delete(id);
      settled.add(id);
      requestEnds.set(id, e.type === 'permission_denied' ? e.payload.reason : e.payload.decision);
    }
    if (e.type === 'tool_call_scheduled') {
      calls.add(e.payload.toolCallId);
      unbatched.add(e.payload.toolCallId);
    }
    if (e.type === 'tool_call_result' || e.type === 'tool_call_error') {
      calls.delete(e.payload.toolCallId);
      const code = e.type === 'tool_call_error' ? e.payload.error.code : undefined;
      callEnds.set(e.payload.toolCallId, {
        status: e.type === 'tool_call_result' ? 'completed' : 'error',
        ...(code === undefined ? {} : { code }),
      });
    }
    if (e.type === 'tool_batch_complete') {
      for (const id of e.payload.toolCallIds) {
        unbatched.delete(id);
        settled.add(id);
      }
    }
  }
  return {
    openRequests: [...requests.keys()],
    openCalls: [...calls],
    unbatchedCalls: [...unbatched],
    laterMentions,
    requestEnds,
    callEnds,
  };
}

/** The events the projection service reduces: the non-transient ones (decisions/0061). */
export function durableEvents(events: readonly SessionEvent[]): SessionEvent[] {
  return events.filter((e) => !isTransientEventType(e.type));
}

/** A session's persisted transcript, parsed back into contracts' shapes (R10.4). */
export async function loadTranscriptEntries(
  db: StoreDb,
  sessionId: string,
): Promise<TranscriptEntry[]> {
  const rows = await loadTranscript(db, sessionId);
  return rows.map((row) => ({
    message: Message.parse(row.message.data),
    parts: row.parts.map((p) => Part.parse(p.data)),
  }));
}

/**
 * The two other answers a projection must equal: a rebuild from `events` (R10.3) and, on
 * the fields a transcript determines, a hydration of `transcript` (R10.4).
 */
export function otherAnswers(
  sessionId: string,
  events: readonly SessionEvent[],
  transcript: readonly TranscriptEntry[],
): { rebuilt: SessionProjection; hydrated: ReturnType<typeof transcriptView> } {
  const hydrated = hydrateTranscript(sessionId, transcript, { traceId: 'a'.repeat(32) });
  return {
    rebuilt: rebuildProjection(sessionId, durableEvents(events)),
    hydrated: transcriptView(rebuildProjection(sessionId, hydrated)),
  };
}

/** The fields of a projection that hydration must reproduce ({@link otherAnswers}). */
export { transcriptView };
