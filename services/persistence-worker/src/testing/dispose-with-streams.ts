import { connectBus, deleteProvisioned } from '@agentwire/bus';
import { names } from '@agentwire/contracts';
import type { TestEnvironment } from '@agentwire/testing';

/**
 * A worker test's clean-up: deletes the streams provisioned under `env`'s prefix (through a
 * connection of its own, the worker being stopped by then), then disposes `env`.
 */
export async function disposeWithStreams(env: TestEnvironment): Promise<void> {
  const bus = await connectBus({ servers: env.natsUrl, name: 'cleanup' });
  await deleteProvisioned(bus.jsm, names(env.prefix));
  await bus.close();
  await env.dispose();
}
