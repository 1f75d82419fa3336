#!/usr/bin/env node
/**
 * `agentwire`: the command-line frontend (DESIGN.md "Names"). Run it as `pnpm agentwire
 * <command>` from the repository, `node services/cli/src/main.ts <command>`, or through the
 * package's `agentwire` bin. Talks NATS directly (NATS_URL, AW_PREFIX): runtime operations,
 * projection and read-side queries, session following. See `agentwire --help` and the README.
 */
import type { BusConnection } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { CommanderError } from 'commander';
import type { CliContext } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import { buildProgram } from './program.ts';
import { createProgress } from './progress.ts';
import { coloursEnabled, createStyle } from './style.ts';

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

/** The NATS client, loaded by the first command that connects (not by `--help`). */
const loadBus = () => import('@agentwire/bus');

async function connectWithin(url: string, timeoutMs: number): Promise<BusConnection> {
  const { connectBus } = await loadBus();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CliError(
            'nats_unreachable',
            `cannot reach NATS at ${url} within ${timeoutMs} ms`,
            EXIT.failure,
          ),
        ),
      timeoutMs,
    );
  });
  const connecting = connectBus({
    servers: url,
    name: `agentwire-cli-${process.pid}`,
    auth: process.env,
  });
  // A connection that arrives after the timeout is closed, not leaked.
  connecting.then(
    (bus) => {
      if (timer === undefined) void bus.close();
    },
    () => undefined,
  );
  try {
    return await Promise.race([connecting, timeout]);
  } finally {
    clearTimeout(timer);
    timer = undefined;
  }
}

function connectTimeoutMs(): number {
  const raw = process.env.AW_CONNECT_TIMEOUT_MS ?? '5000';
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
    throw new CliError(
      'usage',
      `AW_CONNECT_TIMEOUT_MS must be a positive whole number, got ${JSON.stringify(raw)}`,
      EXIT.usage,
    );
  }
  return Number(raw);
}

async function main(argv: readonly string[]): Promise<number> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  let bus: BusConnection | undefined;
  const progress = createProgress(process.stdout);
  const program = buildProgram({
    writeOut: (text) => process.stdout.write(text),
    ...(process.stdin.isTTY && process.stdout.isTTY
      ? { terminal: { input: process.stdin, output: process.stdout } }
      : {}),
    connect: async ({ json }): Promise<CliContext> => {
      let n: ReturnType<typeof names>;
      try {
        n = names(process.env.AW_PREFIX ?? 'aw');
      } catch (cause) {
        throw new CliError('usage', `AW_PREFIX: ${(cause as Error).message}`, EXIT.usage);
      }
      const url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
      bus = await progress(`connecting to ${url}`, connectWithin(url, connectTimeoutMs()));
      const { QueryClient, RuntimeClient } = await loadBus();
      process.once('SIGINT', abort);
      process.once('SIGTERM', abort);
      return {
        client: new RuntimeClient(bus, n),
        query: new QueryClient(bus, n),
        out,
        err,
        signal: controller.signal,
        json,
        style: createStyle(!json && coloursEnabled(process.stdout, process.env)),
        progress: json ? (_label, work) => work : progress,
      };
    },
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') {
        return EXIT.ok;
      }
      // A bare `agentwire`: commander would print the whole help as an error.
      if (error.code === 'commander.help') {
        throw new CliError('usage', 'missing command (see agentwire --help)', EXIT.usage);
      }
      throw new CliError(
        'usage',
        // One line: commander puts its suggestion ("(Did you mean export?)") on a second.
        `${error.message.replace(/^error: /, '').replaceAll('\n', ' ')} (see agentwire --help)`,
        EXIT.usage,
        {
          cause: error,
        },
      );
    }
    throw error;
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
    await bus?.close();
  }
}

/**
 * Resolves once what was written to `stream` is handed over: on a pipe, writes are
 * asynchronous, and `process.exit` would drop the rest of a large output (an export's).
 */
function written(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}

let code: number;
try {
  code = await main(process.argv.slice(2));
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  err(`agentwire: ${message.split('\n')[0]}`);
  code = error instanceof CliError ? error.exitCode : EXIT.failure;
}
await Promise.all([written(process.stdout), written(process.stderr)]);
process.exit(code);
