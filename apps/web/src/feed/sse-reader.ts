/** One Server-Sent Events frame (the fields a frontend reads; comments are dropped). */
export interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

/**
 * Cuts a Server-Sent Events byte stream into frames as the WHATWG event-stream grammar
 * says: lines end with LF, CRLF or CR; a blank line ends a frame; `data` lines join with
 * LF; comment lines (`: heartbeat`) carry nothing. Incremental: `push` takes any chunk and
 * returns the frames it completed, keeping a partial line for the next chunk.
 */
export class SseReader {
  #buffer = '';
  #id: string | undefined;
  #event: string | undefined;
  #data: string[] = [];
  #sawCr = false;

  push(chunk: string): SseFrame[] {
    const frames: SseFrame[] = [];
    let text = chunk;
    // A CR at the end of the last chunk and an LF at the start of this one are one break.
    if (this.#sawCr && text.startsWith('\n')) text = text.slice(1);
    this.#sawCr = text.endsWith('\r');
    this.#buffer += text;
    const lines = this.#buffer.split(/\r\n|\r|\n/);
    this.#buffer = lines.pop() ?? '';
    for (const line of lines) {
      const frame = this.#line(line);
      if (frame !== undefined) frames.push(frame);
    }
    return frames;
  }

  #line(line: string): SseFrame | undefined {
    if (line === '') {
      if (this.#data.length === 0 && this.#event === undefined) return undefined;
      const frame: SseFrame = {
        data: this.#data.join('\n'),
        ...(this.#id === undefined ? {} : { id: this.#id }),
        ...(this.#event === undefined ? {} : { event: this.#event }),
      };
      this.#id = undefined;
      this.#event = undefined;
      this.#data = [];
      return frame;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'data') this.#data.push(value);
    else if (name === 'id') this.#id = value;
    else if (name === 'event') this.#event = value;
    return undefined;
  }
}
