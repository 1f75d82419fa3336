import { RuntimeClient as BusRuntimeClient, deadLetterStream } from '@agentwire/bus';
import { duplicateNumbers, readSessionMessages } from '@agentwire/bus/testing';
import { type RuntimeStack, startRuntimeStack } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let stack: RuntimeStack;
let frontend: BusRuntimeClient;

beforeAll(async () => {
  stack = await startRuntimeStack({ name: 'poison-e2e', projection: true }, ['pA', 'pB']);
  frontend = new BusRuntimeClient(stack.bus, stack.names);
});

afterAll(async () => {
  await stack?.stop();
});

const encoder = new TextEncoder();

/** Publishes raw bytes onto a subject of the events or commands stream, as anyone could. */
async function publishRaw(subject: string, body: string, h?: Record<string, string>) {
  const headers = natsHeaders();
  for (const [k, v] of Object.entries(h ?? {})) headers.set(k, v);
  await stack.bus.js.publish(subject, encoder.encode(body), h === undefined ? {} : { headers });
}

describe('garbage on a session subject poisons nothing (issue 9)', () => {
  it('garbage on ev, tx and the command subject, and a header-less last message: replies truthful, consumers go on, nothing lost', {
    timeout: 180_000,
  }, async () => {
    const { client, names } = stack;
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const owner = String(opened.owner);
    const follow = client.follow(sid, 0);
    expect(await client.op(sid, 'prompt', { text: 'first', wait: true }, 60_000)).toMatchObject({
      ok: true,
      status: 'complete',
    });
    const turn1 = follow.events.find((e) => e.type === 'turn_started')?.turnId ?? 'none';

    // Garbage, in every place: the owner's next publishes meet it, its fences included.
    await publishRaw(names.eventSubject(sid), 'not json at all');
    await publishRaw(names.transientSubject(sid, turn1), '{"broken": ');
    await publishRaw(names.commandSubject(sid), '<<garbage>>');
    await publishRaw(
      names.transientSubject(sid, 'stray'),
      JSON.stringify({ id: 'stray', sessionId: sid, type: 'model_streaming' }),
    ); // a header-less message, the session's last one

    const second = await client.op(sid, 'prompt', { text: 'second', wait: true }, 60_000);
    expect(second).toMatchObject({ ok: true, status: 'complete' });

    // A new owner loads the session with garbage as its last message, and numbers on.
    await stack.killRuntime(owner);
    const third = await client.op(sid, 'prompt', { text: 'third', wait: true }, 60_000);
    expect(third).toMatchObject({ ok: true, status: 'complete' });
    await waitUntil(() => follow.events.filter((e) => e.type === 'turn_complete').length === 3, {
      timeoutMs: 30_000,
      what: 'the follower to see three turns end',
    });
    await follow.stop();

    const messages = await readSessionMessages(stack.bus.js, names, sid);
    expect(duplicateNumbers(messages)).toEqual(new Map());
    const numbers = follow.events.map((e) => e.sequenceNumber);
    expect(numbers.every((n, i) => i === 0 || n > (numbers[i - 1] ?? 0))).toBe(true);
    const lastEv = Math.max(
      ...messages.filter((m) => m.subject.endsWith('.ev')).map((m) => m.number ?? 0),
    );

    // The projection and the worker went on past the garbage.
    await waitUntil(
      async () => {
        const p = await frontend.projection(sid);
        return p.ok && p.asOfSeq === lastEv;
      },
      { timeoutMs: 60_000, what: `the projection at ${lastEv}` },
    );
    const projection = await frontend.projection(sid);
    expect(projection.ok && projection.projection).toMatchObject({ status: 'idle', turnCount: 3 });
    await waitUntil(
      async () => {
        const rows = await stack.db
          .selectFrom('session_inputs')
          .select('status')
          .where('session_id', '=', sid)
          .execute();
        return rows.length === 3 && rows.every((r) => r.status === 'promoted');
      },
      { timeoutMs: 60_000, what: 'three promoted inputs' },
    );
    const dlq = await stack.bus.jsm.streams.info(deadLetterStream(names));
    expect(dlq.state.messages).toBeGreaterThanOrEqual(2); // the ev and the command garbage
  });
});
