import {
  FrameReader,
  type FrameReading,
  type SessionEvent,
  SessionProjection,
} from '@agentwire/contracts';
import { type SseFrame, SseReader } from './sse-reader.ts';

/** Where the feed stands: the page shows `reconnecting` while it is not `live`. */
export type FeedStatus = 'connecting' | 'live' | 'reconnecting' | 'gone';

/** What a {@link SessionFeed} tells its page. */
export interface FeedListener {
  /** New events, each above every number delivered before, in order. */
  onEvents(events: readonly SessionEvent[]): void;
  /** The base had expired: replace the whole view with this projection (R15.1). */
  onSnapshot(projection: SessionProjection, asOfSeq: number): void;
  onStatus(status: FeedStatus): void;
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
  /** The `fetch` to use (tests pass their own). */
  readonly fetch?: typeof fetch;
}

/** How the next connection asks: from the last number, or for a snapshot first. */
type Ask = 'after' | 'snapshot';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Follows one session over `GET /sessions/:id/events` with `fetch` and a stream reader, not
 * `EventSource`: an `EventSource` gives up for good on a non-200 answer (a gateway that is
 * starting answers 503) and cannot tell a page how long it has been silent. Frames go
 * through the contracts' `FrameReader` (docs/decisions/0200), one per feed across
 * reconnects: it drops frames the page has, reassembles and checks fragments, and on a gap
 * or a refused frame asks for one resync from its number, then for a snapshot. The feed
 * reconnects from that number after any loss, so events arrive once each, in order.
 */
export class SessionFeed {
  readonly #o: Required<Omit<SessionFeedOptions, 'fetch'>> & { readonly fetch: typeof fetch };
  readonly #listener: FeedListener;
  readonly #stop = new AbortController();
  readonly #frames: FrameReader;
  #ask: Ask = 'after';
  #status: FeedStatus | undefined;
  #running: Promise<void> | undefined;

  constructor(options: SessionFeedOptions, listener: FeedListener) {
    this.#o = {
      silenceMs: 40_000,
      backoffMs: 250,
      maxBackoffMs: 4_000,
      ...options,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    };
    this.#listener = listener;
    this.#frames = new FrameReader({ after: options.afterSequence });
  }

  /** The number of the last event delivered (or of the snapshot). */
  get lastSequence(): number {
    return this.#frames.after;
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
      this.#setStatus(first ? 'connecting' : 'reconnecting');
      first = false;
      const outcome = await this.#connect();
      if (outcome === 'gone') {
        this.#setStatus('gone');
        return;
      }
      if (this.#stop.signal.aborted) return;
      // A resync is asked for at once; a lost connection waits, longer each time in a row.
      if (outcome === 'resync') continue;
      if (outcome === 'delivered') backoff = this.#o.backoffMs;
      this.#setStatus('reconnecting');
      await sleep(backoff, this.#stop.signal);
      backoff = Math.min(backoff * 2, this.#o.maxBackoffMs);
    }
  }

  /** Tells the page of a change of status, once per change. */
  #setStatus(status: FeedStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    this.#listener.onStatus(status);
  }

  #url(): string {
    const id = encodeURIComponent(this.#o.sessionId);
    const query = this.#ask === 'snapshot' ? 'snapshot=true' : `after=${this.#frames.after}`;
    return `${this.#o.baseUrl}/sessions/${id}/events?${query}`;
  }

  /** One connection, until it ends or a frame asks to start over. */
  async #connect(): Promise<'gone' | 'resync' | 'delivered' | 'nothing'> {
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
      quiet();
      const res = await this.#o.fetch(this.#url(), {
        headers: { accept: 'text/event-stream' },
        signal: connection.signal,
        cache: 'no-store',
      });
      if (res.status === 404) return 'gone';
      if (!res.ok || res.body === null) return 'nothing';
      this.#ask = 'after';
      this.#setStatus('live');
      const reader = new SseReader();
      const decoder = new TextDecoder();
      const body = res.body.getReader();
      for (let chunk = await body.read(); !chunk.done; chunk = await body.read()) {
        quiet();
        for (const frame of reader.push(decoder.decode(chunk.value, { stream: true }))) {
          const next = this.#deliver(frame);
          if (next === 'resync') return 'resync';
          if (next === 'restart') return 'nothing';
          if (next === 'delivered') delivered = true;
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

  /** `resync`: reconnect now as the reader asks; `restart`: reconnect after the backoff. */
  #deliver(frame: SseFrame): 'resync' | 'restart' | 'delivered' | undefined {
    const reading: FrameReading = this.#frames.read({
      type: frame.event ?? 'message',
      data: frame.data,
    });
    switch (reading.kind) {
      case 'events':
        if (reading.events.length > 0) this.#listener.onEvents(reading.events);
        return 'delivered';
      case 'snapshot': {
        const projection = SessionProjection.safeParse(reading.projection);
        if (!projection.success) {
          this.#ask = 'snapshot';
          return 'restart';
        }
        this.#listener.onSnapshot(projection.data, reading.asOfSeq);
        return 'delivered';
      }
      case 'resync':
        this.#ask = 'after';
        return 'resync';
      case 'snapshot_needed':
        this.#ask = 'snapshot';
        return 'resync';
      case 'server_error':
      case 'dropped':
      case 'partial':
      case 'ignored':
        return undefined;
      default:
        return reading satisfies never;
    }
  }
}
