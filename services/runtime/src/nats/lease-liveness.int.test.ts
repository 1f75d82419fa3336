import { deleteProvisioned, provision } from '@agentwire/bus';
import { type Names, names as namesOf } from '@agentwire/contracts';
import { noopLogger } from '@agentwire/telemetry';
import { createTestEnvironment, type TestEnvironment, waitUntil } from '@agentwire/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseManager } from './lease-manager.ts';

let env: TestEnvironment;
let nc: NatsConnection;
let kv: KV;
let names: Names;

beforeAll(async () => {
  env = await createTestEnvironment();
  names = namesOf(env.prefix);
  nc = await connect({ servers: env.natsUrl });
  await provision(nc, names, { leaseTtlMs: 30_000 });
  kv = await new Kvm(nc).open(names.leaseBucket);
});

afterAll(async () => {
  await deleteProvisioned(await jetstreamManager(nc), names);
  await nc.close();
  await env.dispose();
});

const pingSubject = (id: string) => names.runtimeInstancePing(id);

function manager(
  instanceId: string,
  lost: string[] = [],
  takeoverConfirmMs = 100,
  connection: NatsConnection = nc,
): LeaseManager {
  return new LeaseManager({
    kv,
    nc: connection,
    instanceId,
    host: 'test',
    pid: 1,
    ttlMs: 30_000,
    pingSubject,
    takeoverConfirmMs,
    logger: noopLogger,
    onLost: (sessionId) => lost.push(sessionId),
  });
}

describe('lease takeover judges liveness by the owner connection, never by one late answer (0110)', () => {
  it('an owner that answers keeps its lease', async () => {
    const sub = nc.subscribe(pingSubject('alive'), { callback: (_e, m) => void m.respond('pong') });
    await manager('alive').acquire('s-alive');
    await expect(manager('taker1').acquire('s-alive')).rejects.toMatchObject({
      code: 'lease_conflict',
      detail: { owner: 'alive', liveness: 'alive' },
    });
    sub.unsubscribe();
  });

  it('tells who holds a lease: nobody, itself, a live owner or a gone one', async () => {
    const sub = nc.subscribe(pingSubject('holder'), {
      callback: (_e, m) => void m.respond('pong'),
    });
    const holder = manager('holder');
    await holder.acquire('s-held');
    const asker = manager('asker');
    expect(await asker.holder('s-held')).toBe('live');
    expect(await holder.holder('s-held')).toBe('mine');
    expect(await asker.holder('s-free')).toBe('free');
    await holder.release('s-held');
    expect(await asker.holder('s-held')).toBe('free');
    await manager('vanished').acquire('s-vanished');
    expect(await asker.holder('s-vanished')).toBe('gone');
    sub.unsubscribe();
  });

  it('an owner that holds its subscription but does not answer (paused, starved) keeps it', async () => {
    const sub = nc.subscribe(pingSubject('paused'), { callback: () => {} });
    await manager('paused').acquire('s-paused');
    await expect(manager('taker2').acquire('s-paused')).rejects.toMatchObject({
      code: 'lease_conflict',
      detail: { owner: 'paused', liveness: 'unresponsive' },
    });
    expect(JSON.parse((await kv.get('s-paused'))?.string() ?? '{}').owner).toBe('paused');
    sub.unsubscribe();
  });

  it('an owner with no subscription at all, twice, is taken over with a compare-and-set', async () => {
    const lost: string[] = [];
    const gone = manager('gone', lost);
    await gone.acquire('s-gone');
    const taken = await manager('taker3').acquire('s-gone');
    expect(taken).toEqual({ tookOverFrom: 'gone' });
    // The old owner finds out at its next renewal, and nothing else.
    await gone.renewAll();
    expect(lost).toEqual(['s-gone']);
    expect(gone.held.has('s-gone')).toBe(false);
  });

  it('an owner that comes back within the confirmation window keeps its lease', async () => {
    await manager('returning').acquire('s-returning');
    let pings = 0;
    const counting = new Proxy(nc, {
      get: (target, prop) =>
        prop === 'request'
          ? (...args: Parameters<NatsConnection['request']>) =>
              target.request(...args).finally(() => {
                pings += 1;
              })
          : Reflect.get(target, prop, target),
    });
    const taker = manager('taker4', [], 1_500, counting).acquire('s-returning');
    // It reconnects (its ping subscription reappears) after the first ping, before the second.
    await waitUntil(() => pings === 1, { what: 'the first ping' });
    const sub = nc.subscribe(pingSubject('returning'), {
      callback: (_e, m) => void m.respond('pong'),
    });
    await expect(taker).rejects.toMatchObject({
      code: 'lease_conflict',
      detail: { owner: 'returning', liveness: 'alive' },
    });
    sub.unsubscribe();
  });

  it('a writer past its local deadline renews before it publishes, and keeps going if nobody took it', async () => {
    let now = Date.now();
    const slow = new LeaseManager({
      kv,
      nc,
      instanceId: 'slow',
      host: 'test',
      pid: 1,
      ttlMs: 30_000,
      pingSubject,
      logger: noopLogger,
      now: () => now,
      onLost: () => {},
    });
    await slow.acquire('s-slow');
    expect(slow.ensureValid('s-slow')).toBe(true);
    now += 25_000; // resumed after a pause: past 0.8 TTL since the last renewal
    expect(await slow.ensureValid('s-slow')).toBe('valid');
    expect(slow.ensureValid('s-slow')).toBe(true);
    await kv.delete('s-slow'); // now somebody else's, as far as the bucket is concerned
    now += 25_000;
    expect(await slow.ensureValid('s-slow')).toBe('lost');
  });
});
