import type { BusConnection } from '@agentwire/bus';
import {
  duplicateNumbers,
  readSessionMessages,
  recordSessionMessages,
} from '@agentwire/bus/testing';
import { type Names, names as namesOf } from '@agentwire/contracts';
import type { TurnOutcome } from '@agentwire/engine';
import { type TestEnvironment, waitUntil } from '@agentwire/testing';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedRuntime } from '../start-runtime.ts';
import { startInProcessRuntimes } from '../testing/in-process-runtimes.ts';

let env: TestEnvironment;
let bus: BusConnection;
let names: Names;
let a: StartedRuntime;
let b: StartedRuntime;
let stop = async () => {};

beforeAll(async () => {
  const started = await startInProcessRuntimes({
    tag: 'split-brain',
    instanceIds: ['brainA', 'brainB'],
    workspaceFiles: { 'README.md': '# split brain\n' },
  });
  ({ env, bus, stop } = started);
  names = namesOf(env.prefix);
  [a, b] = started.runtimes;
});

afterAll(() => stop());

/** Runs a turn through admission; resolves, never rejects, with how the turn settled. */
async function runTurn(
  runtime: StartedRuntime,
  sid: string,
  text: string,
): Promise<PromiseSettledResult<TurnOutcome>> {
  const session = runtime.host.resident(sid);
  if (session === undefined) throw new Error(`${sid} is not resident on ${runtime.instanceId}`);
  const admission = await session.submit(text);
  if (!admission.ok || admission.delivery !== 'startNow') throw new Error('turn did not start');
  const [settled] = await Promise.allSettled([admission.done]);
  return settled;
}

/** Records the ids of the events `runtime` got into the stream for `sid` (its sinks run after the ack). */
function publishedBy(runtime: StartedRuntime, sid: string): Set<string> {
  const ids = new Set<string>();
  runtime.host.residentEmitter(sid)?.appender.addSink({
    name: 'published-by',
    onSessionEvent: (event) => {
      ids.add(event.id);
    },
  });
  return ids;
}

describe('two writers on one session (issue 21, R2.3, R13.1, docs/decisions/0110)', () => {
  it('a runtime given a stale lease while the owner streams: one event per number, the loser fenced at once', async () => {
    const sid = `split-${Date.now()}`;
    await a.host.activate(sid, 'open');
    const recording = await recordSessionMessages(bus.js, names, sid);
    const byA = publishedBy(a, sid);
    const turnA = runTurn(a, sid, '[scenario:slow_text] stream for a while');
    await waitUntil(
      async () =>
        (await readSessionMessages(bus.js, names, sid)).filter(
          (m) => m.event?.type === 'model_streaming',
        ).length >= 3,
      { timeoutMs: 15_000, what: 'A streaming on its tx subject' },
    );

    // B believes the session is its own (A's lease "expired"), while A goes on streaming.
    const kv = await new Kvm(bus.nc).open(names.leaseBucket);
    await kv.delete(sid);
    await b.host.activate(sid, 'op');
    const byB = publishedBy(b, sid);
    const turnB = runTurn(b, sid, '[scenario:slow_text] my turn now');
    const [outcomeA, outcomeB] = await Promise.all([turnA, turnB]);
    await waitUntil(() => recording.messages.some((m) => m.event?.type === 'turn_complete'), {
      timeoutMs: 10_000,
      what: "B's turn_complete in the recording",
    });
    await recording.stop();

    // Everything the stream ever stored, purged or not: what live followers saw.
    const messages = recording.messages;
    expect(duplicateNumbers(messages)).toEqual(new Map());
    const events = messages.flatMap((m) => (m.event === undefined ? [] : [m.event]));
    const numbers = events.map((e) => e.sequenceNumber);
    expect([...numbers].sort((x, y) => x - y)).toEqual(numbers);

    // The loser is fenced on its first publish after B's first write: none of A's events
    // lies after B's first message in the stream.
    const firstOfB = messages.findIndex((m) => m.event !== undefined && !byA.has(m.event.id));
    expect(firstOfB).toBeGreaterThan(0);
    const lateA = messages.slice(firstOfB).filter((m) => m.event && byA.has(m.event.id));
    expect(lateA).toEqual([]);
    expect(outcomeA.status).toBe('rejected');
    expect(outcomeA.status === 'rejected' && outcomeA.reason).toMatchObject({ code: 'fenced' });
    expect(a.host.resident(sid)).toBeUndefined();

    // B's turn ran to its end, numbered after everything A got in.
    expect(outcomeB).toMatchObject({ status: 'fulfilled' });
    expect((outcomeB as PromiseFulfilledResult<TurnOutcome>).value.status).toBe('complete');
    expect(byB.size).toBeGreaterThan(3);
  });
});
