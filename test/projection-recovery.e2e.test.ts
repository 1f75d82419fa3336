import type { SessionProjection } from '@agentwire/contracts';
import { transcriptView } from '@agentwire/domain';
import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { getLastSequence } from '@agentwire/store';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * R10.4 against real processes (issue 10, docs/decisions/0228): when a session's first
 * events have aged out of the stream and its projection row is gone, a rebuild hydrates the
 * transcript the real engine wrote back into the equivalent event sequence (with
 * `session_created` synthesised, R4.3) and reduces it with the same reducer; the live path
 * then goes on from the durable mark. A session in the middle of a turn is left incomplete.
 */
let stack: RuntimeStack;
let client: WireDriver;
const patiently = { timeoutMs: 60_000, intervalMs: 50 };

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'projection-recovery-e2e',
      projection: true,
      runtimeEnv: { AW_PERMISSION_TIMEOUT_MS: '60000' },
    },
    ['rtA'],
  );
  ({ client } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function projectionOf(sessionId: string): Promise<SessionProjection | undefined> {
  const reply = await client.request(stack.names.projectionGet, { sessionId });
  return reply.ok ? (reply.projection as SessionProjection | undefined) : undefined;
}

function projectionUrl(path: string): string {
  return `http://127.0.0.1:${stack.projection?.port}${path}`;
}

interface Job {
  readonly id: string;
  readonly state: string;
  readonly sessionsRecovered?: readonly string[];
  readonly sessionsIncomplete?: readonly string[];
}

/** Runs a rebuild of one session to its end and returns the finished job. */
async function rebuild(sessionId: string): Promise<Job> {
  const res = await fetch(projectionUrl('/rebuild'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sessionId }),
  });
  expect(res.status).toBe(202);
  const { job } = (await res.json()) as { job: Job };
  let final: Job = job;
  await waitUntil(
    async () => {
      const r = await fetch(projectionUrl(`/rebuild/${job.id}`));
      final = ((await r.json()) as { job: Job }).job;
      return final.state !== 'running';
    },
    { ...patiently, what: 'the rebuild to finish' },
  );
  return final;
}

/** What an age limit does to a session: only its last `keep` events stay in the stream. */
async function ageOut(sessionId: string, keep: number): Promise<void> {
  await stack.bus.jsm.streams.purge(stack.names.eventsStream, {
    filter: stack.names.eventSubject(sessionId),
    keep,
  });
  await stack.db.deleteFrom('session_projections').where('session_id', '=', sessionId).execute();
}

describe('a projection recovered from the transcript (R10.4)', () => {
  it('a quiet session whose start aged out comes back equal on the transcript fields, and goes on live', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0, { answer: 'allow' });
    for (const text of ['[scenario:two_tools] one', 'two', '[scenario:run_command] three']) {
      expect(await client.runTurn(sid, text, follow)).toMatchObject({ ok: true });
    }
    expect(await client.op(sid, 'rename', { title: 'Renamed by hand' })).toMatchObject({
      ok: true,
    });
    const last = () => follow.events.at(-1);
    await waitUntil(
      async () => {
        const tip = last()?.sequenceNumber ?? 0;
        const p = await projectionOf(sid);
        return (
          p?.lastSequenceNumber === tip &&
          p.titleSource === 'custom' &&
          (await getLastSequence(stack.db, sid)) === tip
        );
      },
      { ...patiently, what: 'the projection and the worker at the last event' },
    );
    const live = await projectionOf(sid);
    if (live === undefined) throw new Error('no live projection');

    await ageOut(sid, 3);
    expect(await projectionOf(sid)).toBeUndefined();
    const job = await rebuild(sid);
    expect(job).toMatchObject({ state: 'done', sessionsRecovered: [sid], sessionsIncomplete: [] });
    const recovered = await projectionOf(sid);
    if (recovered === undefined) throw new Error('nothing recovered');
    expect(transcriptView(recovered)).toEqual(transcriptView(live));
    expect(transcriptView(live)).toMatchObject({ status: 'idle', turnCount: 3 });
    expect(recovered).toMatchObject({
      lastSequenceNumber: live.lastSequenceNumber,
      title: 'Renamed by hand',
      titleSource: 'custom',
    });

    // The live path goes on from the durable mark.
    expect(await client.runTurn(sid, 'four', follow)).toMatchObject({ ok: true });
    await waitUntil(
      async () => {
        const p = await projectionOf(sid);
        return p?.lastSequenceNumber === last()?.sequenceNumber && p?.turnCount === 4;
      },
      { ...patiently, what: 'the recovered projection following the next turn' },
    );
    await follow.stop();
  });

  it('a session in the middle of a turn is left incomplete, never guessed', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    expect(await client.runTurn(sid, 'first', follow)).toMatchObject({ ok: true });
    const held = await client.op(sid, 'prompt', { text: '[scenario:held_stream] hold' });
    expect(held).toMatchObject({ ok: true });
    const started = () => follow.events.filter((e) => e.type === 'turn_started').at(1);
    await waitUntil(() => started() !== undefined, { ...patiently, what: 'the held turn' });
    await waitUntil(
      async () => (await getLastSequence(stack.db, sid)) >= (started()?.sequenceNumber ?? 0),
      { ...patiently, what: 'the worker past the held turn start' },
    );
    await ageOut(sid, 2);
    const job = await rebuild(sid);
    expect(job).toMatchObject({ state: 'done', sessionsRecovered: [], sessionsIncomplete: [sid] });
    expect(await projectionOf(sid)).toBeUndefined();
    expect(await client.op(sid, 'interrupt', {})).toMatchObject({ ok: true });
    await follow.stop();
  });
});
