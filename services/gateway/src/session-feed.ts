import { isBaseExpired, type SessionFollower } from '@agentwire/bus';
import type { SessionEvent } from '@agentwire/contracts';
import type { GatewayBackend } from './gateway-port.ts';

/** One thing an SSE client is sent: an event, or a snapshot that replaces its state (R15.1). */
export type FeedItem =
  | { readonly kind: 'event'; readonly event: SessionEvent }
  | { readonly kind: 'snapshot'; readonly projection: unknown; readonly asOfSeq: number };

/**
 * Stable codes of {@link FeedError}, sent in the `event: error` frame:
 * - `snapshot_unavailable`: the base expired and the projection could not be read;
 * - `base_expired`: the base expired again right after a snapshot (the projection is behind
 *   the stream's retained window); the client should reconnect later.
 */
export type FeedErrorCode = 'snapshot_unavailable' | 'base_expired';

/** Why a {@link SessionFeed} gave up. */
export class FeedError extends Error {
  override readonly name = 'FeedError';
  readonly code: FeedErrorCode;

  constructor(code: FeedErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

export interface SessionFeedOptions {
  readonly backend: Pick<GatewayBackend, 'follow' | 'projection'>;
  readonly sessionId: string;
  /** The client's base (R15.1). */
  readonly afterSequence: number;
  /** Timeout of the projection read, ms. */
  readonly requestTimeoutMs: number;
  /** Start with a snapshot whatever the base (`?snapshot=true`, docs/decisions/0200). */
  readonly snapshotFirst?: boolean;
}

/**
 * What one SSE client of a session is sent (R15.1, docs/decisions/0103): the events after
 * its base, replayed then tailed. When the follower reports that the base lies outside the
 * retained window (`base_expired`), the feed reads the projection and yields it as a
 * snapshot, then follows on after the snapshot's `asOfSeq`. It resynchronises once: a second
 * gap before any event followed the snapshot ends the feed with a {@link FeedError}, as does
 * a projection it cannot read. Iterate it once.
 */
export class SessionFeed implements AsyncIterable<FeedItem> {
  readonly #o: SessionFeedOptions;
  #follower: SessionFollower | undefined;
  #stopped = false;

  constructor(options: SessionFeedOptions) {
    this.#o = options;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<FeedItem> {
    let after = this.#o.afterSequence;
    let resynced = false;
    if (this.#o.snapshotFirst === true) {
      const snapshot = await this.#snapshot('a snapshot was asked for');
      resynced = true;
      after = snapshot.asOfSeq;
      if (this.#stopped) return;
      yield snapshot;
    }
    while (!this.#stopped) {
      const follower = this.#o.backend.follow(this.#o.sessionId, after);
      this.#follower = follower;
      try {
        for await (const event of follower) {
          resynced = false;
          yield { kind: 'event', event };
        }
        return;
      } catch (error) {
        if (!isBaseExpired(error) || this.#stopped) throw error;
        if (resynced) {
          throw new FeedError(
            'base_expired',
            `the snapshot at ${after} is older than the retained events: ${error.message}`,
            { cause: error },
          );
        }
        const snapshot = await this.#snapshot(error.message);
        resynced = true;
        after = snapshot.asOfSeq;
        if (!this.#stopped) yield snapshot;
      }
    }
  }

  /** Ends the iteration: stops the current follower. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#follower?.stop();
  }

  async #snapshot(why: string): Promise<FeedItem & { kind: 'snapshot' }> {
    const { sessionId, requestTimeoutMs } = this.#o;
    let failure: string;
    try {
      const reply = await this.#o.backend.projection(sessionId, { timeoutMs: requestTimeoutMs });
      if (reply.ok)
        return { kind: 'snapshot', projection: reply.projection, asOfSeq: reply.asOfSeq };
      failure = `${reply.error.code}: ${reply.error.message}`;
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    throw new FeedError('snapshot_unavailable', `${why}; no snapshot (${failure})`);
  }
}
