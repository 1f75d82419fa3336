import type { SessionEvent, SessionProjection } from '@agentwire/contracts';
import { decodeFrame } from './decode-frame.ts';
import { SseReader } from './sse-reader.ts';

/** Where the feed stands: the page shows `reconnecting` while it is not `live`. */
export type FeedStatus = 'connecting' | 'live' | 'reconnecting' | 'gone';

/** What a {@link SessionFeed} tells its page. */
export interface FeedListener {
  /** New events, each above every number delivered before, in order. */
  onEvents(events: readonly SessionEvent[]): void;
  /** The base had expired: replace the whole view with this projection (R15.1). */
  onSnapshot(projection: SessionProjection, asOfSeq: number): void;
  onStatus(status: FeedStatus, detail?: string): void;
}

/** Settings of a {@link SessionFeed}. */
export interface SessionFeedOptions {
  /** The gateway's origin and path prefix, `''` for the page's own origin. */
  readonly baseUrl: string;
  readonly sessionId: string;
  /** The number the page already has: the feed follows from the event after it. */
  readonly afterSequence: number;
  /** No byte for this long (heartbeats included) counts as a lost connection. */
  readonly silenceMs?: number;
  /** First reconnect delay; it doubles up to {@link maxBackoffMs}. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Follows one session over `GET /sessions/:id/events?after=N` with `fetch` and a stream
 * reader, not `EventSource`: an `EventSource` gives up for good on a non-200 answer (a
 * gateway that is starting answers 503) and cannot tell a page how long it has been
 * silent. The feed keeps the last number it delivered and reconnects from it after any
 * loss, so events arrive once each, in order: the server replays from the base, and a
 * frame at or below it is dropped here.
 */
export class SessionFeed {
  readonly #o: Required<SessionFeedOptions>;
  readonly #listener: FeedListener;
  readonly #stop = new AbortController();
  #last: number;
  #running: Promise<void> | undefined;

  constructor(options: SessionFeedOptions, listener: FeedListener) {
    this.#o = { silenceMs: 40_000, backoffMs: 250, maxBackoffMs: 4_000, ...options };
    this.#listener = listener;
    this.#last = options.afterSequence;
  }

  /** The number of the last event delivered (or of the snapshot). */
  get lastSequence(): number {
    return this.#last;
  }

  start(): void {
    this.#running ??= this.#loop();
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  async #loop(): Promise<void> {
    let backoff = this.#o.backoffMs;
    let first = true;
    while (!this.#stop.signal.aborted) {
      this.#listener.onStatus(first ? 'connecting' : 'reconnecting');
      first = false;
      const outcome = await this.#connect();
      if (outcome === 'gone') {
        this.#listener.onStatus('gone', 'the session does not exist');
        return;
      }
      if (outcome === 'delivered') backoff = this.#o.backoffMs;
      if (this.#stop.signal.aborted) return;
      this.#listener.onStatus('reconnecting');
      await sleep(backoff, this.#stop.signal);
      backoff = Math.min(backoff * 2, this.#o.maxBackoffMs);
    }
  }

  /** One connection, until it ends: whether it delivered anything decides the backoff. */
  async #connect(): Promise<'gone' | 'delivered' | 'nothing'> {
    const connection = new AbortController();
    const abort = () => connection.abort();
    this.#stop.signal.addEventListener('abort', abort);
    let silence: ReturnType<typeof setTimeout> | undefined;
    const quiet = () => {
      clearTimeout(silence);
      silence = setTimeout(abort, this.#o.silenceMs);
    };
    let delivered = false;
    try {
      const id = encodeURIComponent(this.#o.sessionId);
      quiet();
      const res = await fetch(`${this.#o.baseUrl}/sessions/${id}/events?after=${this.#last}`, {
        headers: { accept: 'text/event-stream' },
        signal: connection.signal,
        cache: 'no-store',
      });
      if (res.status === 404) return 'gone';
      if (!res.ok || res.body === null) return 'nothing';
      this.#listener.onStatus('live');
      const reader = new SseReader();
      const decoder = new TextDecoder();
      const body = res.body.getReader();
      for (let chunk = await body.read(); !chunk.done; chunk = await body.read()) {
        quiet();
        for (const frame of reader.push(decoder.decode(chunk.value, { stream: true }))) {
          if (this.#deliver(frame)) delivered = true;
        }
      }
      return delivered ? 'delivered' : 'nothing';
    } catch {
      return delivered ? 'delivered' : 'nothing';
    } finally {
      clearTimeout(silence);
      this.#stop.signal.removeEventListener('abort', abort);
      connection.abort();
    }
  }

  #deliver(frame: Parameters<typeof decodeFrame>[0]): boolean {
    const item = decodeFrame(frame);
    if (item.kind === 'snapshot') {
      this.#last = item.asOfSeq;
      this.#listener.onSnapshot(item.projection, item.asOfSeq);
      return true;
    }
    if (item.kind !== 'events') return false;
    const fresh = item.events.filter((e) => e.sequenceNumber > this.#last);
    if (fresh.length === 0) return false;
    this.#last = fresh.at(-1)?.sequenceNumber ?? this.#last;
    this.#listener.onEvents(fresh);
    return true;
  }
}
