import type { ServerResponse } from 'node:http';
import type { SessionFollower } from '@agentwire/bus';
import type { SessionEvent } from '@agentwire/contracts';

/** Options of {@link SseStream}. */
export interface SseStreamOptions {
  /** Interval of `: heartbeat` comments that keep proxies from closing an idle stream, ms. */
  readonly heartbeatMs: number;
  /** The reconnect delay suggested to browsers (`retry:`), ms. */
  readonly retryMs?: number;
  /** Called after each event is written (metrics). */
  readonly onEvent?: (event: SessionEvent) => void;
}

/** Why a stream ended. */
export type SseEndReason = 'client_closed' | 'shutdown' | 'follow_failed';

/**
 * One Server-Sent Events response following one session (R15.1): each event is a frame
 * `id: <sequenceNumber>` + `data: <envelope JSON>`, so a browser's `Last-Event-ID` on
 * reconnect is the base to resume from. Writes wait for `drain` (a slow client slows its
 * own follower, nobody else's); heartbeats are comments; a client disconnect or
 * {@link SseStream.close} stops the follower.
 */
export class SseStream {
  readonly #res: ServerResponse;
  readonly #options: SseStreamOptions;
  #follower: SessionFollower | undefined;
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

  /** Sends the headers and pumps `follower` into the response until the stream ends. */
  async run(follower: SessionFollower, afterSequence: number): Promise<SseEndReason> {
    this.#follower = follower;
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
      for await (const event of follower) {
        if (this.#ended !== undefined) break;
        await this.#write(`id: ${event.sequenceNumber}\ndata: ${JSON.stringify(event)}\n\n`);
        this.#options.onEvent?.(event);
      }
    } catch (error) {
      if (this.#ended === undefined) {
        const message = error instanceof Error ? error.message : String(error);
        this.#res.write(
          `event: error\ndata: ${JSON.stringify({ code: 'follow_failed', message })}\n\n`,
        );
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
    await this.#follower?.stop().catch(() => undefined);
    if (!this.#res.writableEnded) {
      if (reason === 'shutdown' && !this.#res.destroyed) this.#res.write(': shutting down\n\n');
      this.#res.end();
    }
    this.#resolveDone(reason);
  }

  #write(chunk: string): Promise<void> {
    if (this.#res.write(chunk)) return Promise.resolve();
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
