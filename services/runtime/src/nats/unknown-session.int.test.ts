import { type BusConnection, RuntimeClient } from '@agentwire/bus';
import { names as namesOf } from '@agentwire/contracts';
import type { TestEnvironment } from '@agentwire/testing';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedRuntime } from '../start-runtime.ts';
import { startInProcessRuntimes } from '../testing/in-process-runtimes.ts';

let env: TestEnvironment;
let bus: BusConnection;
let a: StartedRuntime;
let b: StartedRuntime;
let stop = async () => {};

beforeAll(async () => {
  const started = await startInProcessRuntimes({
    tag: 'unknown-session',
    instanceIds: ['unknownA', 'unknownB'],
  });
  ({ env, bus, stop } = started);
  [a, b] = started.runtimes;
});

afterAll(() => stop());

/** The last message under a session's key in the lease bucket (a put or a marker), if any. */
async function leaseKeyEntry(sessionId: string): Promise<unknown> {
  const bucket = namesOf(env.prefix).leaseBucket;
  return bus.jsm.streams
    .getMessage(`KV_${bucket}`, { last_by_subj: `$KV.${bucket}.${sessionId}` })
    .catch(() => null);
}

async function op(sessionId: string, name: string, body: unknown): Promise<unknown> {
  const reply = await bus.nc.request(
    `${env.prefix}.rt.${sessionId}.${name}`,
    JSON.stringify(body),
    {
      timeout: 10_000,
    },
  );
  return reply.json<unknown>();
}

describe('an unknown session id (R13.2, docs/decisions/0077)', () => {
  it('refuses concurrent ops on two instances without ever holding or leaving a lease', async () => {
    const sid = `nobody-${Date.now()}`;
    const client = new RuntimeClient(bus, namesOf(env.prefix));
    const bodies: [string, unknown][] = [
      ['prompt', { text: 'hi' }],
      ['interrupt', {}],
      ['rename', { title: 'x' }],
      ['answer_permission', { requestId: 'r1', decision: 'allow' }],
      ['close', {}],
      ['remove_input', { inputId: 'i1' }],
      ['reorder_inputs', { orderedInputIds: ['i1'] }],
    ];
    const requests = Array.from({ length: 6 }, () => bodies).flat();
    let settled = false;
    const sightings: string[] = [];
    // A frontend's follow asks `knows` while the ops are refused: it must never see a trace.
    const watcher = (async () => {
      while (!settled) {
        if (await client.knows(sid)) sightings.push('knows');
        if ((await leaseKeyEntry(sid)) !== null) sightings.push('lease key');
      }
    })();
    const replies = await Promise.all(requests.map(([name, body]) => op(sid, name, body)));
    settled = true;
    await watcher;

    expect(replies).toEqual(
      requests.map(() =>
        expect.objectContaining({
          ok: false,
          error: expect.objectContaining({ code: 'unknown_session' }),
        }),
      ),
    );
    expect(sightings).toEqual([]);
    expect(await leaseKeyEntry(sid)).toBeNull();
    expect(await client.knows(sid)).toBe(false);
    for (const rt of [a, b]) {
      expect(rt.host.residentSessionIds).not.toContain(sid);
      expect(rt.host.leases.held.has(sid)).toBe(false);
    }
  });

  it('lets an open that raced a refused op open the session', async () => {
    const sid = `raced-${Date.now()}`;
    const refused = a.host.activate(sid, 'op');
    const opened = a.host.activate(sid, 'open');
    await expect(refused).rejects.toMatchObject({ code: 'unknown_session' });
    await expect(opened).resolves.toBeDefined();
    expect(a.host.residentSessionIds).toContain(sid);
    await a.host.deactivate(sid);
  });

  it('takes over a silent opened session of a dead owner instead of calling it unknown', async () => {
    const sid = `orphan-${Date.now()}`;
    const kv = await new Kvm(bus.nc).open(namesOf(env.prefix).leaseBucket);
    const now = Date.now();
    const ghost = { owner: 'ghost', host: 'gone', pid: 1, acquiredAt: now, renewedAt: now };
    await kv.create(sid, JSON.stringify(ghost));

    const reply = await op(sid, 'rename', { title: 'adopted' });
    // Answered by the new owner, not `unknown_session`.
    expect(reply).toMatchObject({ ok: true, title: 'adopted' });
    const owners = [a, b].filter((rt) => rt.host.residentSessionIds.includes(sid));
    expect(owners).toHaveLength(1);
    await owners[0]?.host.deactivate(sid);
  });
});
