import { ServerResponse } from 'node:http';
import { Socket } from 'node:net';
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

/**
 * Each frame's bytes as one HTTP/1.1 chunk (`<size hex>\r\n<bytes>\r\n`), built once per
 * frame and shared by every stream that writes it.
 */
const chunks = new WeakMap<EncodedFrame, Buffer>();

function chunkOf(frame: EncodedFrame): Buffer {
  let chunk = chunks.get(frame);
  if (chunk === undefined) {
    const head = `${frame.bytes.length.toString(16)}\r\n`;
    chunk = Buffer.allocUnsafe(head.length + frame.bytes.length + 2);
    chunk.write(head, 0, 'latin1');
    frame.bytes.copy(chunk, head.length);
    chunk.write('\r\n', head.length + frame.bytes.length, 'latin1');
    chunks.set(frame, chunk);
  }
  return chunk;
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
  /**
   * The response's socket when frames go to it as chunks of their own (a chunked HTTP/1.1
   * response): one write of a shared buffer per frame, instead of the response's framing,
   * corking and three-part write for every client.
   */
  #socket: Socket | undefined;
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
    // The headers went out with that write; what follows is chunks in order on the socket,
    // whether written here or by the response (heartbeats, the error, the last chunk). Only
    // a response that writes to a real socket the way Node's own does (not an injected
    // request's, not a wrapper that transforms the body) is written around.
    const socket = this.#res.socket;
    if (
      this.#res.chunkedEncoding &&
      this.#res.write === ServerResponse.prototype.write &&
      socket instanceof Socket &&
      socket.writable
    ) {
      this.#socket = socket;
    }
    this.#heartbeat = setInterval(() => {
      if (this.#ended === undefined) this.#res.write(': heartbeat\n\n');
    }, this.#options.heartbeatMs);
    this.#heartbeat.unref();
    try {
      await source.pipeTo({
        write: (frame) => {
          // After the end nothing is written; the source stops, which close() asked for.
          if (this.#ended !== undefined) return false;
          const socket = this.#socket;
          const taken =
            socket === undefined ? this.#res.write(frame.bytes) : socket.write(chunkOf(frame));
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
    const writer = this.#socket ?? this.#res;
    return new Promise((resolve) => {
      const done = () => {
        writer.off('drain', done);
        this.#res.off('close', done);
        resolve();
      };
      writer.on('drain', done);
      this.#res.on('close', done);
    });
  }
}
