import { inject } from 'vitest';
import type { TestEnvironment } from './environment.ts';
import { callControl, dedicatedServerIds } from './postgres-control.ts';
import type { Capability } from './postgres-server.ts';

/**
 * Whether `restartPostgres` can work in this run, or why not, for `describe.skipIf`.
 * With `{ dedicated: true }` (the default) it asks about a per-file server
 * (`createTestEnvironment({ dedicatedPostgres: true })`); otherwise about the shared one.
 */
export function postgresRestartSupport(options: { dedicated?: boolean } = {}): Capability {
  const harness = inject('agentwireHarness');
  return options.dedicated === false ? harness.sharedPostgresRestart : harness.dedicatedPostgres;
}

/**
 * Restarts the Postgres server that `env`'s database lives on, keeping its host and port,
 * and resolves once it accepts queries again; connections open before it are cut (the
 * "Postgres restarted mid-stream" cases of R-level crash tests).
 *
 * With a dedicated server (`createTestEnvironment({ dedicatedPostgres: true })`) only this
 * file is affected. Without, the run's shared server restarts and every file running in
 * parallel loses its connections: avoid that outside a run of one file. In containers mode
 * the container restarts; in local mode a temporary cluster restarts (dedicated) or the
 * machine's cluster through `pg_ctlcluster` (shared, root only).
 */
export async function restartPostgres(env: TestEnvironment): Promise<void> {
  const id = dedicatedServerIds.get(env) ?? 'shared';
  await callControl('POST', `/postgres/${id}/restart`);
}
