import type { ServerResponse } from 'node:http';
import { BusError } from '@agentwire/bus';
import type { EncodedFrame } from './session-channel.ts';
import type { ClientFrames } from './session-fanout.ts';
import { FeedError } from './session-feed.ts';

export interface SseStreamOptions {
  /** Interval of `: heartbeat` comments that keep proxies from closing an idle stream, ms. */
  readonly heartbeatMs: number;
  /** The reconnect delay suggested to browsers (`retry:`), ms. */
  readonly retryMs?: number;
  /** Called after each frame is written (metrics). */
  readonly onFrame?: (frame: EncodedFrame) => void;
}

/** Why a stream ended. */
export type SseEndReason = 'client_closed' | 'shutdown' | 'follow_failed';

/**
 * One Server-Sent Events response following one session (R15.1, R15.2, docs/decisions/0200):
 * it writes the frames it is given, already encoded: `id: <toSeq>` +
 * `data: {"fromSeq","toSeq","events"}`, `event: snapshot`, or `event: fragment` pieces of
 * either, so a browser's `Last-Event-ID` on reconnect is the base to resume from. A failure is
 * `event: error`, `data: {"code","message"}`, and ends the stream. Writes wait for `drain` (a
 * slow client slows its own follower, nobody else's); heartbeats are comments; a client
 * disconnect or {@link SseStream.close} stops the follower.
 */
export class SseStream {
  readonly #res: ServerResponse;
  readonly #options: SseStreamOptions;
  #source: ClientFrames | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #ended: SseEndReason | undefined;
  readonly #done: Promise<SseEndReason>;
  #resolveDone: (reason: SseEndReason) => void = () => {};

  constructor(res: ServerResponse, options: SseStreamOptions) {
    this.#res = res;
    this.#options = options;
    this.#done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
    res.on('close', () => void this.close('client_closed'));
  }

  /** Resolves once the stream ended, with the reason. */
  get done(): Promise<SseEndReason> {
    return this.#done;
  }

  /** Sends the headers and writes `source` into the response until the stream ends. */
  async run(source: ClientFrames, afterSequence: number): Promise<SseEndReason> {
    this.#source = source;
    this.#res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    this.#res.write(
      `retry: ${this.#options.retryMs ?? 2000}\n: following after ${afterSequence}\n\n`,
    );
    this.#heartbeat = setInterval(() => {
      if (this.#ended === undefined) this.#res.write(': heartbeat\n\n');
    }, this.#options.heartbeatMs);
    this.#heartbeat.unref();
    try {
      await source.pipeTo({
        write: (frame) => {
          // After the end nothing is written; the source stops, which close() asked for.
          if (this.#ended !== undefined) return false;
          const taken = this.#res.write(frame.bytes);
          this.#options.onFrame?.(frame);
          return taken;
        },
        drained: () => this.#drained(),
      });
    } catch (error) {
      if (this.#ended === undefined) {
        const message = error instanceof Error ? error.message : String(error);
        // A follower's own code (`sequence_conflict`, say) tells the client what went wrong.
        const code =
          error instanceof FeedError || error instanceof BusError ? error.code : 'follow_failed';
        this.#res.write(`event: error\ndata: ${JSON.stringify({ code, message })}\n\n`);
        await this.close('follow_failed');
      }
    }
    return this.#done;
  }

  /** Ends the stream: stops the follower and the heartbeat, then ends the response. */
  async close(reason: SseEndReason): Promise<void> {
    if (this.#ended !== undefined) return;
    this.#ended = reason;
    clearInterval(this.#heartbeat);
    await this.#source?.stop().catch(() => undefined);
    if (!this.#res.writableEnded) {
      if (reason === 'shutdown' && !this.#res.destroyed) this.#res.write(': shutting down\n\n');
      this.#res.end();
    }
    this.#resolveDone(reason);
  }

  #drained(): Promise<void> {
    if (this.#ended !== undefined) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#res.off('drain', done);
        this.#res.off('close', done);
        resolve();
      };
      this.#res.on('drain', done);
      this.#res.on('close', done);
    });
  }
}
