import { names } from '@agentwire/contracts';
import type { TestEnvironment } from '@agentwire/testing';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BusConnection, connectBus } from './connect-bus.ts';
import { provision } from './provision.ts';
import { publishEvent } from './publish-event.ts';
import { RuntimeClient } from './runtime-client.ts';
import { deprovision, durableEvent, setup } from './test-support.ts';

let env: TestEnvironment;
let nc: NatsConnection;
let bus: BusConnection;
let client: RuntimeClient;

beforeAll(async () => {
  ({ env, nc } = await setup());
  await provision(nc, names(env.prefix));
  bus = await connectBus({ servers: env.natsUrl, name: 'runtime-client-int', noAsyncTraces: true });
  client = new RuntimeClient(bus, names(env.prefix));
});

afterAll(async () => {
  await bus.close();
  await deprovision(nc, names(env.prefix));
  await nc.close();
  await env.dispose();
});

describe('RuntimeClient.knows', () => {
  it('knows a session by its events or its held lease, not by a released one', async () => {
    const n = names(env.prefix);
    const leases = await new Kvm(nc).open(n.leaseBucket);
    await publishEvent(jetstream(nc), n, durableEvent('s-events', 1), {
      previousDurableSequence: 0,
    });
    await leases.put('s-held', '{"instanceId":"i-1"}');
    await leases.put('s-deleted', '{"instanceId":"i-1"}');
    await leases.delete('s-deleted');
    await leases.put('s-purged', '{"instanceId":"i-1"}');
    await leases.purge('s-purged');

    expect(await client.knows('s-events')).toBe(true);
    expect(await client.knows('s-held')).toBe(true);
    expect(await client.knows('s-deleted')).toBe(false);
    expect(await client.knows('s-purged')).toBe(false);
    expect(await client.knows('s-never')).toBe(false);
  });
});
