/** Colours of terminal output: ANSI when enabled, plain text otherwise. */
export interface Style {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly cyan: (text: string) => string;
}

const plain = (text: string) => text;

function ansi(open: number, close: number): (text: string) => string {
  return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

/** A style that colours (`enabled`) or leaves text as it is. */
export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  }
  return {
    bold: ansi(1, 22),
    dim: ansi(2, 22),
    red: ansi(31, 39),
    green: ansi(32, 39),
    yellow: ansi(33, 39),
    cyan: ansi(36, 39),
  };
}

/**
 * True when output to `stream` should be coloured: never with a non-empty `NO_COLOR`
 * (no-color.org), always with `FORCE_COLOR` other than `0`, else when it is a terminal.
 */
export function coloursEnabled(
  stream: { readonly isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  return stream.isTTY === true;
}
