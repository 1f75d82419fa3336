import type { FeedItem } from './session-feed.ts';

/** One event, encoded once (`JSON.stringify`), with its UTF-8 size. */
export interface EncodedEvent {
  readonly seq: number;
  readonly json: string;
  readonly bytes: number;
}

/** What {@link FeedBatches} yields: consecutive events that were ready at once, or a snapshot. */
export type FeedBatch =
  | { readonly kind: 'events'; readonly events: readonly EncodedEvent[] }
  | { readonly kind: 'snapshot'; readonly projection: unknown; readonly asOfSeq: number };

/** Bounds of one batch, and of what is read ahead of a slow consumer. */
export interface BatchLimits {
  /** Most events in one batch. */
  readonly maxEvents: number;
  /** Most bytes of encoded events in one batch (a single larger event is a batch alone). */
  readonly maxBytes: number;
  /** Events read ahead before the source is paused (default 4 × maxEvents). */
  readonly maxQueued?: number;
}

/** A source of feed items that can be stopped (a `SessionFeed`). */
export interface StoppableFeed extends AsyncIterable<FeedItem> {
  stop(): Promise<void>;
}

type Queued = EncodedEvent | (FeedItem & { readonly kind: 'snapshot' });

/**
 * Coalesces a feed into batches (R15.2 "under load the gateway coalesces consecutive
 * events into one frame", docs/decisions/0200): it reads the feed ahead into a bounded queue
 * and yields everything queued, up to the limits, each time the consumer asks. An idle feed
 * gets no timer delay: the first event wakes the consumer, which only lets the current turn of
 * the event loop finish (`setImmediate`) so that events delivered together (one NATS fetch)
 * leave together. A consumer busy writing finds the queue filled meanwhile. Iterate once.
 */
export class FeedBatches implements AsyncIterable<FeedBatch> {
  readonly #feed: StoppableFeed;
  readonly #limits: Required<BatchLimits>;
  #stopped = false;
  #wakeSpace: (() => void) | undefined;

  constructor(feed: StoppableFeed, limits: BatchLimits) {
    this.#feed = feed;
    this.#limits = { maxQueued: limits.maxEvents * 4, ...limits };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<FeedBatch> {
    const queue: Queued[] = [];
    let done = false;
    let failure: { error: unknown } | undefined;
    let wake: (() => void) | undefined;
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const pump = (async () => {
      try {
        for await (const item of this.#feed) {
          queue.push(item.kind === 'event' ? encode(item.event) : item);
          notify();
          while (queue.length >= this.#limits.maxQueued && !this.#stopped) {
            await new Promise<void>((resolve) => {
              this.#wakeSpace = resolve;
            });
          }
          if (this.#stopped) break;
        }
      } catch (error) {
        failure = { error };
      } finally {
        done = true;
        notify();
      }
    })();
    try {
      while (!this.#stopped) {
        if (queue.length === 0) {
          if (done) {
            if (failure !== undefined) throw failure.error;
            return;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        const batch = this.#take(queue);
        this.#wakeSpace?.();
        this.#wakeSpace = undefined;
        yield batch;
      }
    } finally {
      await this.stop();
      await pump;
    }
  }

  /** Ends the iteration and stops the feed. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wakeSpace?.();
    this.#wakeSpace = undefined;
    await this.#feed.stop();
  }

  #take(queue: Queued[]): FeedBatch {
    const first = queue[0] as Queued;
    if ('kind' in first) {
      queue.shift();
      return first;
    }
    const events: EncodedEvent[] = [];
    let bytes = 0;
    while (events.length < this.#limits.maxEvents) {
      const next = queue[0];
      if (next === undefined || 'kind' in next) break;
      if (events.length > 0 && bytes + next.bytes > this.#limits.maxBytes) break;
      events.push(next);
      bytes += next.bytes;
      queue.shift();
    }
    return { kind: 'events', events };
  }
}

function encode(event: { readonly sequenceNumber: number }): EncodedEvent {
  const json = JSON.stringify(event);
  return { seq: event.sequenceNumber, json, bytes: Buffer.byteLength(json) };
}
