import type { SseStream } from './sse-stream.ts';

/** The open SSE streams of one gateway, so that a drain can end them all (SIGTERM). */
export class SseHub {
  readonly #streams = new Set<SseStream>();

  /** Number of open streams. */
  get size(): number {
    return this.#streams.size;
  }

  /** Tracks `stream` until it ends. */
  add(stream: SseStream): void {
    this.#streams.add(stream);
    void stream.done.then(() => this.#streams.delete(stream));
  }

  /** Ends every open stream cleanly: followers stopped, responses ended. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#streams].map((s) => s.close('shutdown')));
  }
}
