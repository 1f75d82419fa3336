/**
 * `pnpm nats-config`: writes `deploy/nats/users.conf`, the NATS users and permissions of
 * every role, from the table in libs/bus/src/permissions/nats-roles.ts, for the prefix
 * `AW_PREFIX` (default `aw`). `--check` exits 1 when the file differs (it is stale).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { natsAuthorizationConfig } from '@agentwire/bus';
import { names } from '@agentwire/contracts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, 'deploy/nats/users.conf');
const text = natsAuthorizationConfig(names(process.env.AW_PREFIX ?? 'aw'));
if (process.argv.includes('--check')) {
  const current = readFileSync(file, 'utf8');
  if (current !== text) {
    process.stderr.write(`${file} is stale: run pnpm nats-config\n`);
    process.exit(1);
  }
} else {
  writeFileSync(file, text);
  process.stdout.write(`wrote ${file}\n`);
}
