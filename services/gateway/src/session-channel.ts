import { encodeEventsFrame, encodeSnapshotFrame } from '@agentwire/contracts';
import {
  type BatchLimits,
  type EncodedEvent,
  type FeedBatch,
  FeedBatches,
} from './feed-batches.ts';
import { SessionFeed, type SessionFeedOptions } from './session-feed.ts';

/** One frame as sent: its range, its events (to trim it for a client mid-frame) and its bytes. */
export interface EncodedFrame {
  readonly kind: 'events' | 'snapshot';
  /** Events: one above the previous frame's `toSeq`; a snapshot: its `asOfSeq`. */
  readonly fromSeq: number;
  /** Events: the last event's number; a snapshot: its `asOfSeq`. */
  readonly toSeq: number;
  readonly events: readonly EncodedEvent[];
  /** The SSE text (one frame, or its fragments), encoded to UTF-8 once. */
  readonly bytes: Buffer;
}

/** How frames are built: batch bounds and the fragment bound of 0200. */
export interface FrameLimits extends BatchLimits {
  /** `AW_SSE_MAX_FRAME_BYTES`: a frame whose data is larger goes out as fragments. */
  readonly maxFrameBytes: number;
}

/** Encodes one batch as the frame that follows `after` on a stream. */
export function encodeBatch(batch: FeedBatch, after: number, maxFrameBytes: number): EncodedFrame {
  if (batch.kind === 'snapshot') {
    const text = encodeSnapshotFrame(batch.projection, batch.asOfSeq, maxFrameBytes);
    const seq = batch.asOfSeq;
    return { kind: 'snapshot', fromSeq: seq, toSeq: seq, events: [], bytes: Buffer.from(text) };
  }
  return encodeEvents(after + 1, batch.events, maxFrameBytes);
}

/** Encodes `events` (non-empty, in order) as an events frame starting at `fromSeq`. */
export function encodeEvents(
  fromSeq: number,
  events: readonly EncodedEvent[],
  maxFrameBytes: number,
): EncodedFrame {
  const toSeq = (events.at(-1) as EncodedEvent).seq;
  const json = events.map((e) => e.json);
  const text = encodeEventsFrame(fromSeq, toSeq, json, maxFrameBytes);
  return { kind: 'events', fromSeq, toSeq, events, bytes: Buffer.from(text) };
}

/** Options of {@link SessionChannel}. */
export interface SessionChannelOptions {
  readonly feed: Omit<SessionFeedOptions, 'afterSequence' | 'snapshotFirst'>;
  /** Where the shared follower starts: the base of the client that opened the channel. */
  readonly afterSequence: number;
  readonly limits: FrameLimits;
  /** Most frames, and most bytes of frames, kept for clients that lag or join late. */
  readonly keepFrames: number;
  readonly keepBytes: number;
  /** Called once when the channel ended (its last client left, or its follower failed). */
  readonly onEnd: () => void;
}

/** What {@link SessionChannel.frameAt} finds at an index. */
export type FrameSlot = EncodedFrame | 'evicted' | 'not_yet';

/**
 * The one NATS follower of a session that all its SSE clients on this gateway share
 * (DESIGN.md "Frontend protocol", docs/decisions/0200). It follows from the base of the client
 * that opened it, batches what is ready at once, encodes each frame once and keeps the last
 * frames (bounded by count and bytes, at least one) in a numbered log. Clients read the log
 * at their own pace: the channel never waits for them, so a slow client holds up nobody; one
 * that fell out of the log catches up on a follower of its own (`ClientFeed`). A base that
 * expired gives the channel's clients a snapshot (the `SessionFeed` rule of 0103). The
 * follower stops when the last client detaches; a failed follower ends the channel, and its
 * clients' streams end with that error.
 */
export class SessionChannel {
  readonly #o: SessionChannelOptions;
  readonly #frames: EncodedFrame[] = [];
  /** Index of `#frames[0]` in the log. */
  #base = 0;
  #keptBytes = 0;
  #clients = 0;
  #batches: FeedBatches | undefined;
  #waiters: (() => void)[] = [];
  #ended: { failure?: unknown } | undefined;

  constructor(options: SessionChannelOptions) {
    this.#o = options;
  }

  /** Index of the oldest frame kept; a client starts scanning there. */
  get firstIndex(): number {
    return this.#base;
  }

  /** True when a client whose base is `after` gets everything after it from the log. */
  covers(after: number): boolean {
    if (this.#ended !== undefined) return false;
    const first = this.#frames[0];
    if (first === undefined) return after >= this.#o.afterSequence;
    return first.kind === 'events' ? first.fromSeq - 1 <= after : first.toSeq <= after;
  }

  /** The frame at `index`, `evicted` when the log moved past it, `not_yet` when to come. */
  frameAt(index: number): FrameSlot {
    if (index < this.#base) return 'evicted';
    return this.#frames[index - this.#base] ?? 'not_yet';
  }

  /**
   * Calls `wake` once, when the next frame is added or the channel ends (then read
   * {@link SessionChannel.failure} and {@link SessionChannel.ended}).
   */
  onChange(wake: () => void): void {
    if (this.#ended !== undefined) wake();
    else this.#waiters.push(wake);
  }

  /** True once the channel ended (its follower stopped or failed): no frame comes any more. */
  get ended(): boolean {
    return this.#ended !== undefined;
  }

  /** The follower's error, when the channel ended because it failed. */
  get failure(): { readonly error: unknown } | undefined {
    const ended = this.#ended;
    return ended !== undefined && 'failure' in ended ? { error: ended.failure } : undefined;
  }

  /** A client starts reading; the first one starts the follower. */
  attach(): void {
    this.#clients += 1;
    if (this.#batches === undefined) void this.#pump();
  }

  /** A client stopped reading; after the last one the follower stops. */
  detach(): void {
    this.#clients -= 1;
    if (this.#clients === 0) void this.#end(undefined);
  }

  async #pump(): Promise<void> {
    const feed = new SessionFeed({ ...this.#o.feed, afterSequence: this.#o.afterSequence });
    const batches = new FeedBatches(feed, this.#o.limits);
    this.#batches = batches;
    let after = this.#o.afterSequence;
    try {
      for await (const batch of batches) {
        const frame = encodeBatch(batch, after, this.#o.limits.maxFrameBytes);
        after = frame.toSeq;
        this.#keep(frame);
      }
      await this.#end(undefined);
    } catch (error) {
      await this.#end({ failure: error });
    }
  }

  #keep(frame: EncodedFrame): void {
    this.#frames.push(frame);
    this.#keptBytes += frame.bytes.length;
    while (
      this.#frames.length > 1 &&
      (this.#frames.length > this.#o.keepFrames || this.#keptBytes > this.#o.keepBytes)
    ) {
      const dropped = this.#frames.shift() as EncodedFrame;
      this.#keptBytes -= dropped.bytes.length;
      this.#base += 1;
    }
    this.#wake();
  }

  async #end(how: { failure: unknown } | undefined): Promise<void> {
    if (this.#ended !== undefined) return;
    this.#ended = how ?? {};
    this.#o.onEnd();
    this.#wake();
    await this.#batches?.stop();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
