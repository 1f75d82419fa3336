import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { findNatsServer, type NatsServerProcess, startNatsServer } from '@agentwire/testing/nats';
import { connect } from '@nats-io/transport-node';
import type { StartOptions } from './start-options.ts';

/** The NATS that `npm start` uses, and the local server it started for it, if any. */
export interface ResolvedNats {
  readonly url: string;
  /** Set when `npm start` started this server; it stops it on exit. */
  readonly started?: NatsServerProcess;
}

/** Thrown when no NATS answers and there is no `nats-server` binary to start one. */
export class NatsServerMissingError extends Error {
  override readonly name = 'NatsServerMissingError';
  readonly code = 'AW_START_NO_NATS_SERVER';
}

/** Whether a NATS server answers at `url` (one attempt, no reconnect). */
async function natsAnswers(url: string): Promise<boolean> {
  try {
    const nc = await connect({ servers: url, reconnect: false, timeout: 2_000 });
    await nc.close();
    return true;
  } catch {
    return false;
  }
}

function missingParagraph(probed: string): string {
  return [
    `No NATS server answers at ${probed}, and no nats-server binary was found to start one`,
    '(looked for AW_NATS_SERVER, nats-server on PATH, /usr/sbin/nats-server). Install it and',
    'run npm start again: on Debian or Ubuntu `sudo apt-get install nats-server`; on macOS',
    '`brew install nats-server`; with Docker `docker run -d -p 4222:4222 nats:2.10 -js`, which',
    'npm start then finds at the default address. Or set NATS_URL to a NATS server with',
    'JetStream.',
  ].join('\n');
}

/**
 * `NATS_URL` when set; else the default address when a server answers there; else a local
 * `nats-server` with JetStream on a free port, data under `<stateDir>/nats` (kept between
 * runs), log in `<logDir>/nats.log`, in its own process group so that a terminal's Ctrl-C
 * leaves it to `npm start` to stop after the services (docs/decisions/0141).
 */
export async function resolveNats(options: StartOptions): Promise<ResolvedNats> {
  if (options.natsUrl) return { url: options.natsUrl };
  if (await natsAnswers(options.defaultNatsUrl)) return { url: options.defaultNatsUrl };
  const binary = findNatsServer();
  if (!binary) throw new NatsServerMissingError(missingParagraph(options.defaultNatsUrl));
  const storeDir = path.join(options.stateDir, 'nats');
  await mkdir(storeDir, { recursive: true });
  const log = createWriteStream(path.join(options.logDir, 'nats.log'), { flags: 'a' });
  const started = await startNatsServer({
    binary,
    storeDir,
    serverName: 'agentwire-local',
    detached: true,
    onLine: (line) => log.write(`${line}\n`),
  });
  return { url: started.url, started };
}
