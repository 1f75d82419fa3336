const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Shows a progress line while a wait runs; a no-op off a terminal. */
export type Progress = <T>(label: string, work: Promise<T>) => Promise<T>;

/** Output a progress line is drawn on: a terminal stream. */
interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * A {@link Progress} that draws a spinner, the label and the seconds waited on `stream`
 * (rewritten in place, erased when the wait ends) when `stream` is a terminal, and draws
 * nothing otherwise, so piped output never holds progress noise.
 */
export function createProgress(stream: ProgressStream, enabled = stream.isTTY === true): Progress {
  return async (label, work) => {
    if (!enabled) return work;
    const started = Date.now();
    let frame = 0;
    const draw = () => {
      const seconds = Math.floor((Date.now() - started) / 1000);
      stream.write(`\r\u001b[2K${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds}s`);
    };
    draw();
    const timer = setInterval(draw, 100);
    try {
      return await work;
    } finally {
      clearInterval(timer);
      stream.write('\r\u001b[2K');
    }
  };
}
