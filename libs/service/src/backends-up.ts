import type { BusConnection } from '@agentwire/bus';
import { type createDatabase, isReachable } from '@agentwire/store';

/** Whether a process's NATS connection and Postgres answer now, for its `/readyz`. */
export interface BackendsUp {
  readonly up: boolean;
  readonly detail: { readonly nats: 'up' | 'down'; readonly postgres: 'up' | 'down' };
}

/**
 * `/readyz`'s check of a service on NATS and Postgres (issue 9): 503 while either is
 * unreachable, not only before the start; undefined backends (not connected yet) are down.
 */
export async function backendsUp(
  backends:
    | { readonly bus: BusConnection; readonly db: ReturnType<typeof createDatabase> }
    | undefined,
): Promise<BackendsUp> {
  const nats = backends?.bus.connected === true;
  const postgres = backends !== undefined && (await isReachable(backends.db));
  return {
    up: nats && postgres,
    detail: { nats: nats ? 'up' : 'down', postgres: postgres ? 'up' : 'down' },
  };
}
