import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Capability } from '../postgres-server.ts';

/** Where Debian and Ubuntu's `nats-server` package puts the binary (not on a user's PATH). */
export const DEBIAN_NATS_SERVER = '/usr/sbin/nats-server';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The `nats-server` binary to run: `AW_NATS_SERVER` when set, else the first
 * `nats-server` on `PATH`, else {@link DEBIAN_NATS_SERVER}; undefined when none exists.
 * No npm package ships the binary (docs/decisions/0140), so it must be installed.
 */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.AW_NATS_SERVER;
  if (chosen) return executable(chosen) ? chosen : undefined;
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'nats-server'))
    .find(executable);
  return onPath ?? (executable(DEBIAN_NATS_SERVER) ? DEBIAN_NATS_SERVER : undefined);
}

/** Whether a dedicated `nats-server` can start here, or why not (for `describe.skipIf`). */
export function natsServerSupport(env: NodeJS.ProcessEnv = process.env): Capability {
  return findNatsServer(env)
    ? { ok: true }
    : { ok: false, reason: 'no nats-server binary (AW_NATS_SERVER, PATH, /usr/sbin)' };
}
