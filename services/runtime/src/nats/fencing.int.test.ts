import type { BusConnection } from '@agentwire/bus';
import { decodeSessionEvent, names as namesOf, type SessionEvent } from '@agentwire/contracts';
import { AppendError } from '@agentwire/engine';
import { startTurn } from '@agentwire/engine/testing';
import { type TestEnvironment, waitUntil } from '@agentwire/testing';
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
    tag: 'fencing',
    instanceIds: ['fenceA', 'fenceB'],
    workspaceFiles: { 'README.md': '# fence\n' },
  });
  ({ env, bus, stop } = started);
  [a, b] = started.runtimes;
});

afterAll(() => stop());

async function evEvents(sessionId: string): Promise<SessionEvent[]> {
  const n = namesOf(env.prefix);
  const consumer = await bus.js.consumers.get(n.eventsStream, {
    filter_subjects: n.eventSubject(sessionId),
  });
  const out: SessionEvent[] = [];
  for (;;) {
    const m = await consumer.next({ expires: 1000 });
    if (m === null) break;
    const decoded = decodeSessionEvent(m.data);
    if (decoded.ok) out.push(decoded.event);
    if (m.info.pending === 0) break;
  }
  return out;
}

describe('single writer (R13.1, docs/decisions/0040)', () => {
  it('a runtime whose lease was taken over cannot publish: the broker rejects it', async () => {
    const sid = `fence-${Date.now()}`;
    await a.host.activate(sid, 'open');
    const sessionA = a.host.resident(sid);
    if (sessionA === undefined) throw new Error('not resident');
    const ticket = await startTurn(sessionA, '[scenario:run_command] go');
    await waitUntil(() => sessionA.permissions.pendingRequestIds().length === 1, {
      timeoutMs: 10_000,
      what: 'permission request',
    });
    const [requestId = ''] = sessionA.permissions.pendingRequestIds();

    // The lease expires while A is paused (simulated: the key disappears); B takes over.
    const kv = await new Kvm(bus.nc).open(namesOf(env.prefix).leaseBucket);
    await kv.delete(sid);
    await b.host.activate(sid, 'op');
    const before = await evEvents(sid);
    expect(before.at(-1)?.type).toBe('turn_error');

    // A wakes up, still believing it owns the session, and tries to go on.
    sessionA.answerPermission(requestId, { decision: 'allow' });
    const failure = await ticket.done.catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AppendError);
    expect(failure).toMatchObject({ code: 'fenced', phase: 'event_store.append' });

    const after = await evEvents(sid);
    expect(after.map((e) => e.id)).toEqual(before.map((e) => e.id));
    expect(after.some((e) => e.type === 'permission_resolved')).toBe(false);

    // B still appends after A was fenced.
    const sessionB = b.host.resident(sid);
    const outcome = await (await startTurn(sessionB, 'after the takeover')).done;
    expect(outcome?.status).toBe('complete');
    const final = await evEvents(sid);
    expect(final.at(-1)?.type).toBe('turn_complete');
    const numbers = final.map((e) => e.sequenceNumber);
    expect(new Set(numbers).size).toBe(numbers.length);
  });
});
