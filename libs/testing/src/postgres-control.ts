import { inject } from 'vitest';

/** Thrown when the global setup's control channel refuses or fails a Postgres request. */
class PostgresControlError extends Error {
  override readonly name = 'PostgresControlError';
  readonly code = 'AW_TEST_POSTGRES_CONTROL';
}

/** Server ids of test environments that have a dedicated Postgres (keyed by the object). */
export const dedicatedServerIds = new WeakMap<object, string>();

/** Calls the control channel of the global setup (see control-channel.ts). */
export async function callControl(method: 'POST' | 'DELETE', path: string): Promise<unknown> {
  const { controlUrl } = inject('agentwireHarness');
  const res = await fetch(`${controlUrl}${path}`, { method });
  const body = (await res.json()) as { reason?: string; error?: string };
  if (!res.ok) {
    throw new PostgresControlError(
      `${method} ${path}: ${body.reason ?? body.error ?? `HTTP ${res.status}`}`,
    );
  }
  return body;
}

/** Asks the global setup for a Postgres server of the calling file's own. */
export async function requestDedicatedPostgres(): Promise<{ id: string; adminUrl: string }> {
  return (await callControl('POST', '/postgres')) as { id: string; adminUrl: string };
}

/** Stops a server obtained with {@link requestDedicatedPostgres}. */
export async function releaseDedicatedPostgres(id: string): Promise<void> {
  await callControl('DELETE', `/postgres/${id}`);
}
