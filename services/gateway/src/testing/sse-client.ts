import { FrameReader, type FrameReading } from '@agentwire/contracts';

/** One Server-Sent Events frame as received. */
interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  /** Comment lines (`: heartbeat`), without the colon. */
  readonly comments: readonly string[];
}

/** A running SSE request (tests and the e2e suite). */
export interface SseConnection {
  readonly status: number;
  readonly headers: Headers;
  /** Frames so far, in order. */
  readonly frames: SseFrame[];
  /** The events of the frames, as a `FrameReader` applied them (docs/decisions/0200). */
  readonly events: {
    readonly sequenceNumber: number;
    readonly type: string;
    [k: string]: unknown;
  }[];
  /** What the reader made of each data frame, in order. */
  readonly readings: FrameReading[];
  /** Resolves when the server ends the stream (or the client aborts). */
  readonly ended: Promise<void>;
  /** The client disconnects. */
  abort(): void;
}

/**
 * Opens `url` as an event stream with `fetch` and parses frames as they arrive (a small
 * stand-in for a browser's `EventSource`, which Node lacks), reading them with a
 * `FrameReader` whose base is `after` (default: the URL's `after=`, or `Last-Event-ID`). A
 * non-200 answer resolves with its status and no frames.
 */
export async function openSse(
  url: string,
  headers: Record<string, string> = {},
  after?: number,
): Promise<SseConnection> {
  const base =
    after ?? Number(headers['last-event-id'] ?? new URL(url).searchParams.get('after') ?? 0);
  const reader = new FrameReader({ after: base });
  const readings: FrameReading[] = [];
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const frames: SseFrame[] = [];
  const events: SseConnection['events'] = [];
  const ended = (async () => {
    if (res.body === null) return;
    const decoder = new TextDecoder();
    let buffer = '';
    // Where the search for the frame's end goes on: a frame of megabytes arrives in many
    // chunks, and scanning it from the start for each would be quadratic.
    let scanned = 0;
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut = buffer.indexOf('\n\n', Math.max(0, scanned - 1));
        while (cut >= 0) {
          const frame = parseFrame(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
          frames.push(frame);
          if (frame.data !== undefined) {
            const reading = reader.read({ type: frame.event ?? 'message', data: frame.data });
            readings.push(reading);
            if (reading.kind === 'events') events.push(...reading.events);
          }
          cut = buffer.indexOf('\n\n');
        }
        scanned = buffer.length;
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  })();
  return {
    status: res.status,
    headers: res.headers,
    frames,
    events,
    readings,
    ended,
    abort: () => controller.abort(),
  };
}

function parseFrame(text: string): SseFrame {
  const fields: { id?: string; event?: string; data?: string } = {};
  const comments: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) {
      comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'id' || name === 'event') fields[name] = value;
    if (name === 'data')
      fields.data = fields.data === undefined ? value : `${fields.data}\n${value}`;
  }
  return { ...fields, comments };
}
