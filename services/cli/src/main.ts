#!/usr/bin/env node
/**
 * `agentwire`: the command-line frontend (DESIGN.md "Names"). Run it as
 * `node services/cli/src/main.ts <command>` or through the package's `agentwire` bin.
 * Talks NATS directly (NATS_URL, AW_PREFIX): runtime operations, projection queries and
 * session following. See `agentwire help` and the README.
 */
import { type BusConnection, connectBus, RuntimeClient } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import { CliError, EXIT } from './cli-error.ts';
import { parseCommand, USAGE } from './parse-args.ts';
import { runCommand } from './run-command.ts';

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

async function connectWithin(url: string, timeoutMs: number): Promise<BusConnection> {
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
  try {
    return await Promise.race([
      connectBus({ servers: url, name: `agentwire-cli-${process.pid}`, auth: process.env }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const command = parseCommand(argv);
  if (command.name === 'help') {
    out(USAGE);
    return EXIT.ok;
  }
  let n: ReturnType<typeof names>;
  try {
    n = names(process.env.AW_PREFIX ?? 'aw');
  } catch (cause) {
    throw new CliError('usage', `AW_PREFIX: ${(cause as Error).message}`, EXIT.usage);
  }
  const bus = await connectWithin(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 5000);
  const controller = new AbortController();
  const abort = () => controller.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  try {
    await runCommand(
      { client: new RuntimeClient(bus, n), out, err, signal: controller.signal },
      command,
    );
    return EXIT.ok;
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
    await bus.close();
  }
}

try {
  process.exit(await main(process.argv.slice(2)));
} catch (error) {
  if (error instanceof CliError) {
    err(`agentwire: ${error.message}`);
    process.exit(error.exitCode);
  }
  err(`agentwire: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(EXIT.failure);
}
