import { connectBus, deadLetterStream, eventHeaders, provision } from '@agentwire/bus';
import { type EventType, HEADERS, names, type SessionEvent } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { getLastSequence, getSession } from '@agentwire/store';
import { listEntries } from '@agentwire/store/testing';
import { createTestEnvironment, seededRandom, type TestEnvironment } from '@agentwire/testing';
import type { JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerConfig } from './config.ts';
import { startWorkerRuntime, type WorkerRuntime } from './start-worker-runtime.ts';
import { disposeWithStreams } from './testing/dispose-with-streams.ts';
import { waitForConsumersIdle } from './testing/wait-for-consumers.ts';
import { shuffleWithinSessions, type WorkItem } from './testing/workload.ts';

let env: TestEnvironment;
let config: WorkerConfig;
let runtime: WorkerRuntime;
/** The committed events batches, to show that a batch mixed both kinds. */
const committedBatches: (readonly JsMsg[])[] = [];
const encoder = new TextEncoder();

beforeAll(async () => {
  env = await createTestEnvironment();
  config = WorkerConfig.parse({
    DATABASE_URL: env.databaseUrl,
    NATS_URL: env.natsUrl,
    AW_PREFIX: env.prefix,
  });
});

afterAll(async () => {
  await runtime?.stop();
  await disposeWithStreams(env);
});

const NON_DURABLE: readonly EventType[] = ['turn_started', 'assistant_message', 'turn_complete'];

/**
 * A session's `ev` events 1..count: a durable `checkpoint_created` every 7th number, the
 * rest non-durable; `durableUntil` stops durable ones after that number, so the session's
 * highest number is carried by non-durable events only.
 */
function sessionEvents(sid: string, count: number, durableUntil = count): SessionEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const seq = i + 1;
    return seq === TRANSIENT_HOLE && sid === 'hw-a' ? undefined : seqEvent(sid, seq, durableUntil);
  }).filter((e) => e !== undefined);
}

/**
 * hw-a's number 49 is a transient event's (on `tx`, which the worker does not read): a
 * later event may carry it without being a second event with a number already seen.
 */
const TRANSIENT_HOLE = 49;

function seqEvent(sid: string, seq: number, durableUntil: number): SessionEvent {
  const type =
    seq % 7 === 0 && seq <= durableUntil
      ? 'checkpoint_created'
      : (NON_DURABLE[seq % NON_DURABLE.length] ?? 'turn_started');
  return sampleSessionEvent(type, { id: `${sid}-e${seq}`, sessionId: sid, sequenceNumber: seq });
}

async function publish(events: readonly SessionEvent[], msgIdSuffix = ''): Promise<void> {
  const n = names(env.prefix);
  const js = runtime?.bus.js ?? (await bus()).js;
  await Promise.all(
    events.map((e) => {
      const h = eventHeaders(e, 0);
      h.set(HEADERS.msgId, `${e.id}${msgIdSuffix}`);
      return js.publish(n.eventSubject(e.sessionId), encoder.encode(JSON.stringify(e)), {
        headers: h,
      });
    }),
  );
}

let publisher: Awaited<ReturnType<typeof connectBus>> | undefined;
async function bus() {
  publisher ??= await connectBus({ servers: env.natsUrl, name: 'sequence-mark-publisher' });
  return publisher;
}

async function idle(): Promise<void> {
  const n = names(env.prefix);
  await waitForConsumersIdle(runtime.bus.jsm, [[n.eventsStream, config.AW_EVENTS_DURABLE]]);
}

describe('durable high-water mark from every ev event (DESIGN invariant 1, decision 0036)', () => {
  it('a mixed batch raises last_sequence to the max per session, shuffled and repeated', {
    timeout: 60_000,
  }, async () => {
    const events = [
      ...sessionEvents('hw-a', 60, 40), // highest durable 35, highest overall 60
      ...sessionEvents('hw-b', 25), // highest durable 21, highest overall 25
      ...sessionEvents('hw-c', 6), // no durable event at all: a stub row
    ];
    // Published before the worker starts, shuffled within each session and then again
    // under new message ids, so the first pull is one batch mixing both kinds, out of
    // order and with duplicates.
    await provision((await bus()).nc, names(env.prefix));
    const items: WorkItem[] = events.map((event) => ({ kind: 'event', event }));
    const eventsOf = (list: readonly WorkItem[]) =>
      list.flatMap((i) => (i.kind === 'event' ? [i.event] : []));
    await publish(eventsOf(shuffleWithinSessions(items, 5)));
    await publish(eventsOf(shuffleWithinSessions(items, 6)), ':again');
    runtime = await startWorkerRuntime({
      config,
      onCommitted: (consumer, messages) => {
        if (consumer === 'events') committedBatches.push(messages);
      },
    });
    await idle();

    expect(await getLastSequence(runtime.db, 'hw-a')).toBe(60);
    expect(await getLastSequence(runtime.db, 'hw-b')).toBe(25);
    expect(await getLastSequence(runtime.db, 'hw-c')).toBe(6);
    const stub = await getSession(runtime.db, 'hw-c');
    expect(stub?.created_at ?? null).toBeNull();
    // Durable events still write their rows (the mark did not replace them).
    expect(await listEntries(runtime.db, 'hw-a')).toHaveLength(5);
    // Every message was committed (not skipped) and some batch mixed both kinds.
    const committed = committedBatches.flat();
    expect(committed).toHaveLength(2 * events.length);
    const isDurable = (m: JsMsg) => m.headers?.get(HEADERS.eventType) === 'checkpoint_created';
    expect(committedBatches.some((b) => b.some(isDurable) && !b.every(isDurable))).toBe(true);
  });

  it('never lowers the mark: older numbers arriving later change nothing', async () => {
    const random = seededRandom(9);
    const older = sessionEvents('hw-a', 59, 40).filter(() => random() < 0.5);
    await publish(older, ':late');
    await idle();
    expect(await getLastSequence(runtime.db, 'hw-a')).toBe(60);

    // A higher non-durable number raises it; a durable event below it does not lower it.
    await publish([
      sampleSessionEvent('turn_complete', {
        id: 'hw-a-e61',
        sessionId: 'hw-a',
        sequenceNumber: 61,
      }),
      sampleSessionEvent('checkpoint_created', {
        id: 'hw-a-late-checkpoint',
        sessionId: 'hw-a',
        sequenceNumber: TRANSIENT_HOLE,
      }),
    ]);
    await idle();
    expect(await getLastSequence(runtime.db, 'hw-a')).toBe(61);
    expect(await listEntries(runtime.db, 'hw-a')).toHaveLength(6);
  });

  it('dead-letters a non-durable event with a bad Aw-Seq header and goes on', async () => {
    const n = names(env.prefix);
    const dlq = deadLetterStream(n);
    const before = (await runtime.bus.jsm.streams.info(dlq)).state.messages;
    const bad = ['0', '-3', '1e3', 'abc', '9007199254740993', '12.5'];
    for (const [i, value] of bad.entries()) {
      const e = sampleSessionEvent('turn_started', {
        id: `hw-bad-${i}`,
        sessionId: 'hw-b',
        sequenceNumber: 1000,
      });
      const h = natsHeaders();
      h.set(HEADERS.msgId, e.id);
      h.set(HEADERS.eventType, e.type);
      h.set(HEADERS.sequence, value);
      await runtime.bus.js.publish(n.eventSubject('hw-b'), encoder.encode(JSON.stringify(e)), {
        headers: h,
      });
    }
    // A good one after the bad ones, and one without Aw-Seq (read from the body).
    const noHeader = sampleSessionEvent('turn_complete', {
      id: 'hw-b-e30',
      sessionId: 'hw-b',
      sequenceNumber: 30,
    });
    const h = natsHeaders();
    h.set(HEADERS.msgId, noHeader.id);
    h.set(HEADERS.eventType, noHeader.type);
    await runtime.bus.js.publish(n.eventSubject('hw-b'), encoder.encode(JSON.stringify(noHeader)), {
      headers: h,
    });
    await publish([
      sampleSessionEvent('turn_started', { id: 'hw-b-e26', sessionId: 'hw-b', sequenceNumber: 26 }),
    ]);
    await idle();

    const info = await runtime.bus.jsm.streams.info(dlq);
    expect(info.state.messages - before).toBe(bad.length);
    for (let seq = info.state.last_seq - bad.length + 1; seq <= info.state.last_seq; seq++) {
      const m = await runtime.bus.jsm.streams.getMessage(dlq, { seq });
      expect(m?.header.get(HEADERS.deadLetterCode)).toBe('invalid_header');
      expect(m?.header.get(HEADERS.deadLetterReason)).toMatch(/Aw-Seq header .* positive integer/);
    }
    expect(await getLastSequence(runtime.db, 'hw-b')).toBe(30);
  });

  it('dead-letters a non-durable event whose subject names no valid session', async () => {
    const n = names(env.prefix);
    const dlq = deadLetterStream(n);
    const before = (await runtime.bus.jsm.streams.info(dlq)).state.messages;
    const e = sampleSessionEvent('turn_started', {
      id: 'hw-bad-subject',
      sessionId: 'hw-b',
      sequenceNumber: 5000,
    });
    // `names` refuses such a token, so the subject is spelled out (the stream takes it).
    const subject = `${env.prefix}.session.hw$b.ev`;
    expect(n.eventSubject('hw-b')).toBe(`${env.prefix}.session.hw-b.ev`);
    await runtime.bus.js.publish(subject, encoder.encode(JSON.stringify(e)), {
      headers: eventHeaders(e, 0),
    });
    await idle();
    const info = await runtime.bus.jsm.streams.info(dlq);
    expect(info.state.messages - before).toBe(1);
    const m = await runtime.bus.jsm.streams.getMessage(dlq, { seq: info.state.last_seq });
    expect(m?.header.get(HEADERS.deadLetterCode)).toBe('subject_mismatch');
    expect(m?.header.get(HEADERS.deadLetterReason)).toMatch(/names no valid session/);
    expect(await getSession(runtime.db, 'hw$b')).toBeUndefined();
    expect(await getLastSequence(runtime.db, 'hw-b')).toBe(30);
  });
});

afterAll(async () => {
  await publisher?.close();
});
