import { FeedBatches } from './feed-batches.ts';
import {
  type EncodedFrame,
  encodeBatch,
  encodeEvents,
  type FrameLimits,
  SessionChannel,
} from './session-channel.ts';
import { SessionFeed, type SessionFeedOptions } from './session-feed.ts';

/** Settings of {@link SessionFanout}. */
export interface SessionFanoutOptions {
  readonly backend: SessionFeedOptions['backend'];
  readonly requestTimeoutMs: number;
  readonly limits: FrameLimits;
  /** Frames and bytes each session's channel keeps for late and lagging clients. */
  readonly keepFrames?: number;
  readonly keepBytes?: number;
}

/**
 * Where one client's frames go (its SSE response). `write` takes a frame at once; `false`
 * asks the writer to wait for {@link FrameSink.drained} before the next one.
 */
interface FrameSink {
  write(frame: EncodedFrame): boolean;
  drained(): Promise<void>;
}

/** What one SSE client is sent: frames, each already encoded, written to a sink. */
export interface ClientFrames {
  /**
   * Writes the client's frames to `sink` until {@link ClientFrames.stop}; rejects when the
   * follow failed. Call once.
   */
  pipeTo(sink: FrameSink): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The gateway's session channels, one per followed session ({@link SessionChannel}), and the
 * feeds of their clients (docs/decisions/0200).
 */
export class SessionFanout {
  readonly #o: SessionFanoutOptions;
  readonly #channels = new Map<string, SessionChannel>();

  constructor(options: SessionFanoutOptions) {
    this.#o = options;
  }

  /** Number of sessions with a running shared follower. */
  get channels(): number {
    return this.#channels.size;
  }

  /**
   * The frames for one client with base `after`; with `snapshotFirst` it starts with a
   * snapshot whatever the base (the reader's `snapshot_needed`).
   */
  follow(sessionId: string, after: number, snapshotFirst = false): ClientFrames {
    return new ClientFeed(this, sessionId, after, snapshotFirst);
  }

  /** @internal The session's channel if it covers `after` (one is opened at `after` if none). */
  join(sessionId: string, after: number): SessionChannel | undefined {
    let channel = this.#channels.get(sessionId);
    if (channel === undefined) {
      const created: SessionChannel = new SessionChannel({
        feed: {
          backend: this.#o.backend,
          sessionId,
          requestTimeoutMs: this.#o.requestTimeoutMs,
        },
        afterSequence: after,
        limits: this.#o.limits,
        keepFrames: this.#o.keepFrames ?? 1024,
        keepBytes: this.#o.keepBytes ?? 8 * 1024 * 1024,
        onEnd: () => {
          if (this.#channels.get(sessionId) === created) this.#channels.delete(sessionId);
        },
      });
      channel = created;
      this.#channels.set(sessionId, channel);
    }
    if (!channel.covers(after)) return undefined;
    channel.attach();
    return channel;
  }

  /** @internal The session's channel, if one runs. */
  existing(sessionId: string): SessionChannel | undefined {
    return this.#channels.get(sessionId);
  }

  /** @internal */
  privateFeed(sessionId: string, after: number, snapshotFirst: boolean): FeedBatches {
    const feed = new SessionFeed({
      backend: this.#o.backend,
      sessionId,
      afterSequence: after,
      requestTimeoutMs: this.#o.requestTimeoutMs,
      snapshotFirst,
    });
    return new FeedBatches(feed, this.#o.limits);
  }

  /** @internal */
  get maxFrameBytes(): number {
    return this.#o.limits.maxFrameBytes;
  }
}

/** What a client reading the log waits for next: a frame, a drain, or nothing (it left). */
type LogWait = 'frame' | 'drain' | 'done';

/**
 * One client's frames: from the session's shared channel when its log covers the client's
 * base, else from a follower of its own (a late joiner's or a lagging client's gap, or a
 * requested snapshot) until the channel covers it. Either way each event is sent once from
 * the client's own base: frames of the log at or below the base are skipped, and one that
 * straddles it is re-encoded with only the newer events.
 */
class ClientFeed implements ClientFrames {
  readonly #fanout: SessionFanout;
  readonly #sessionId: string;
  #after: number;
  #snapshotFirst: boolean;
  /** The client met a gap in the log: it catches up alone before joining again. */
  #behind = false;
  #stopped = false;
  #private: FeedBatches | undefined;
  /** Resumes the client's current wait on the channel (stop() ends it). */
  #wake: (() => void) | undefined;

  constructor(fanout: SessionFanout, sessionId: string, after: number, snapshotFirst: boolean) {
    this.#fanout = fanout;
    this.#sessionId = sessionId;
    this.#after = after;
    this.#snapshotFirst = snapshotFirst;
  }

  async pipeTo(sink: FrameSink): Promise<void> {
    while (!this.#stopped) {
      const alone = this.#snapshotFirst || this.#behind;
      this.#behind = false;
      const channel = alone ? undefined : this.#fanout.join(this.#sessionId, this.#after);
      if (channel !== undefined) {
        try {
          await this.#shared(channel, sink);
        } finally {
          channel.detach();
        }
      } else {
        await this.#catchUp(sink);
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#private?.stop();
  }

  /**
   * Writes the channel's log to `sink` until the client falls out of it (then resolves) or
   * stops. The channel calls a waiting client back as it adds a frame, and the client writes
   * it there and then: a client that keeps up costs one call and one write per frame, no
   * promise and no turn of the event loop (the cost that grows with the number of clients).
   */
  #shared(channel: SessionChannel, sink: FrameSink): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const cursor = { index: channel.firstIndex };
      const pump = (): void => {
        let next: LogWait;
        try {
          next = this.#writeLog(channel, cursor, sink);
        } catch (error) {
          reject(error);
          return;
        }
        if (next === 'done') {
          resolve();
          return;
        }
        const resume = this.#waitOnce(pump);
        // A slow client waits for its socket; the channel goes on without it, and it reads
        // on from its index (or falls out of the log) once drained.
        if (next === 'drain') void sink.drained().then(resume);
        // An ended channel without failure (its follower returned) keeps the stream open
        // until the client leaves, as before 0200.
        else if (!channel.ended) channel.onChange(resume);
      };
      pump();
    });
  }

  /**
   * Writes the frames of the log from `cursor.index` that are there, until one is to come
   * or the sink asks for a drain; `done` when the client stopped or left the log. Throws the
   * follower's error when the channel failed.
   */
  #writeLog(channel: SessionChannel, cursor: { index: number }, sink: FrameSink): LogWait {
    while (!this.#stopped) {
      const slot = channel.frameAt(cursor.index);
      if (slot === 'evicted') return 'done';
      if (slot === 'not_yet') {
        const failure = channel.failure;
        if (failure !== undefined) throw failure.error;
        return 'frame';
      }
      cursor.index += 1;
      if (slot.toSeq <= this.#after) continue;
      let frame = slot;
      if (slot.kind === 'events' && slot.fromSeq - 1 !== this.#after) {
        // A gap between the client and the log: catch up alone (cannot happen while the
        // client reads every frame in order, but costs nothing to guard).
        if (slot.fromSeq - 1 > this.#after) {
          this.#behind = true;
          return 'done';
        }
        const newer = slot.events.filter((e) => e.seq > this.#after);
        frame = encodeEvents(this.#after + 1, newer, this.#fanout.maxFrameBytes);
      }
      this.#after = frame.toSeq;
      if (!sink.write(frame)) return 'drain';
    }
    return 'done';
  }

  /**
   * A callback that resumes `pump` once, also reachable by stop(): the channel (or a drain)
   * and stop() may both call back for the same wait.
   */
  #waitOnce(pump: () => void): () => void {
    let called = false;
    const resume = () => {
      if (called) return;
      called = true;
      this.#wake = undefined;
      pump();
    };
    this.#wake = resume;
    return resume;
  }

  /** Follows alone from the client's base until the session's channel covers it. */
  async #catchUp(sink: FrameSink): Promise<void> {
    const batches = this.#fanout.privateFeed(this.#sessionId, this.#after, this.#snapshotFirst);
    this.#snapshotFirst = false;
    this.#private = batches;
    try {
      for await (const batch of batches) {
        const frame = encodeBatch(batch, this.#after, this.#fanout.maxFrameBytes);
        this.#after = frame.toSeq;
        if (!sink.write(frame)) await sink.drained();
        if (this.#stopped) return;
        const channel = this.#fanout.existing(this.#sessionId);
        if (channel === undefined || channel.covers(this.#after)) return;
      }
    } finally {
      this.#private = undefined;
      await batches.stop();
    }
  }
}
