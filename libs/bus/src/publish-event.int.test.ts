import { names } from '@agentwire/contracts';
import type { TestEnvironment } from '@agentwire/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterStream } from './dead-letter-names.ts';
import { provision } from './provision.ts';
import { publishEvent } from './publish-event.ts';
import { readSessionTip } from './session-fence.ts';
import { lastSessionSequence, openTurns, purgeTurn } from './session-state.ts';
import { deprovision, durableEvent, setup, transientEvent } from './test-support.ts';

let env: TestEnvironment;
let nc: NatsConnection;

beforeAll(async () => {
  ({ env, nc } = await setup());
});

afterAll(async () => {
  await deprovision(nc, names(env.prefix));
  await nc.close();
  await env.dispose();
});

describe('provision', () => {
  it('runs twice and concurrently, leaving one set of streams', async () => {
    const n = names(env.prefix);
    await provision(nc, n, { leaseTtlMs: 20_000 });
    await Promise.all([
      provision(nc, n),
      provision(nc, n),
      provision(nc, n, { eventsMaxAgeMs: 3_600_000 }),
    ]);
    await provision(nc, n, { eventsMaxAgeMs: 3_600_000 });
    const jsm = await jetstreamManager(nc);
    const events = await jsm.streams.info(n.eventsStream);
    expect(events.config.subjects).toEqual([n.eventsStreamSubject]);
    expect(events.config.max_age).toBe(3_600_000 * 1e6);
    expect(events.config.duplicate_window).toBe(120_000 * 1e6);
    expect((await jsm.streams.info(n.commandsStream)).config.retention).toBe('workqueue');
    expect((await jsm.streams.info(deadLetterStream(n))).config.subjects).toEqual([
      `${env.prefix}.dlq.>`,
    ]);
    expect((await jsm.streams.info(`KV_${n.leaseBucket}`)).config.max_age).toBe(30_000 * 1e6);
  });
});

describe('publishEvent', () => {
  it('returns ok, then duplicate for a retried id, then fenced for a stale fence; neither adds a message', async () => {
    const n = names(env.prefix);
    await provision(nc, n);
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const sid = 's-fence';

    const first = await publishEvent(js, n, durableEvent(sid, 1), {
      expectedLastSubjectSequence: 0,
      previousDurableSequence: 0,
    });
    expect(first.kind).toBe('ok');
    const fence1 = first.kind === 'ok' ? first.streamSequence : -1;
    const second = await publishEvent(js, n, durableEvent(sid, 2), {
      expectedLastSubjectSequence: fence1,
      previousDurableSequence: 1,
    });
    expect(second.kind).toBe('ok');
    const before = (await jsm.streams.info(n.eventsStream)).state.messages;

    const retried = await publishEvent(js, n, durableEvent(sid, 2), {
      expectedLastSubjectSequence: fence1,
      previousDurableSequence: 1,
    });
    expect(retried).toEqual({
      kind: 'duplicate',
      streamSequence: second.kind === 'ok' ? second.streamSequence : -1,
    });

    const stale = await publishEvent(js, n, durableEvent(sid, 3, 'other-writer'), {
      expectedLastSubjectSequence: fence1,
      previousDurableSequence: 2,
    });
    expect(stale).toEqual({
      kind: 'fenced',
      actualLastSequence: second.kind === 'ok' ? second.streamSequence : -1,
    });
    expect((await jsm.streams.info(n.eventsStream)).state.messages).toBe(before);
  });

  it('routes transient events to tx.<turnId>, fences them per turn, and finds the session tip across subjects', async () => {
    const n = names(env.prefix);
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const sid = 's-tx';
    const a = await publishEvent(js, n, durableEvent(sid, 1), {
      expectedLastSubjectSequence: 0,
      previousDurableSequence: 0,
    });
    const t = await publishEvent(js, n, transientEvent(sid, 'turn1', 2), {
      expectedLastSubjectSequence: 0,
      previousDurableSequence: 1,
    });
    const t2 = await publishEvent(js, n, transientEvent(sid, 'turn1', 3), {
      expectedLastSubjectSequence: t.kind === 'ok' ? t.streamSequence : -1,
      previousDurableSequence: 1,
    });
    expect([a.kind, t.kind, t2.kind]).toEqual(['ok', 'ok', 'ok']);

    const tip = await lastSessionSequence(jsm, n, sid);
    expect(tip).toMatchObject({ sequenceNumber: 3, subject: n.transientSubject(sid, 'turn1') });
    expect(await openTurns(jsm, n, sid)).toEqual([
      { turnId: 'turn1', subject: n.transientSubject(sid, 'turn1'), messages: 2 },
    ]);

    const { fence, lastNumber, lastDurableNumber } = await readSessionTip(jsm, n, sid);
    expect({ lastNumber, lastDurableNumber }).toEqual({ lastNumber: 3, lastDurableNumber: 1 });
    expect(fence.durable).toBe(a.kind === 'ok' ? a.streamSequence : -1);
    expect(fence.expectedFor({ type: 'model_streaming', turnId: 'turn1' })).toBe(
      t2.kind === 'ok' ? t2.streamSequence : -1,
    );
    expect(fence.expectedFor({ type: 'model_streaming', turnId: 'turn2' })).toBe(0);

    // A stale transient writer expecting an older tx sequence is fenced too.
    const staleTx = await publishEvent(js, n, transientEvent(sid, 'turn1', 4), {
      expectedLastSubjectSequence: t.kind === 'ok' ? t.streamSequence : -1,
      previousDurableSequence: 1,
    });
    expect(staleTx.kind).toBe('fenced');

    expect(await purgeTurn(jsm, n, sid, 'turn1')).toBe(2);
    expect(await openTurns(jsm, n, sid)).toEqual([]);
    expect(await lastSessionSequence(jsm, n, sid)).toMatchObject({
      sequenceNumber: 1,
      subject: n.eventSubject(sid),
    });
    expect(await lastSessionSequence(jsm, n, 'nobody')).toBeNull();
  });

  it('refuses unnumbered events and transient events without a turn', async () => {
    const n = names(env.prefix);
    const js = jetstream(nc);
    await expect(
      publishEvent(
        js,
        n,
        { ...durableEvent('s-bad', 1), sequenceNumber: 0 },
        { previousDurableSequence: 0 },
      ),
    ).rejects.toMatchObject({
      code: 'invalid_event',
    });
    await expect(
      publishEvent(
        js,
        n,
        { ...transientEvent('s-bad', 't', 1), turnId: null },
        { previousDurableSequence: 0 },
      ),
    ).rejects.toMatchObject({ code: 'invalid_event' });
    await expect(
      publishEvent(
        js,
        n,
        { ...durableEvent('s-bad', 1), sequenceNumber: 0 },
        { previousDurableSequence: 0, prevalidated: true },
      ),
    ).rejects.toMatchObject({ code: 'invalid_event' });
  });

  it('publishes a prevalidated event without re-parsing it, body unchanged', async () => {
    const n = names(env.prefix);
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const event = durableEvent('s-pre', 1);
    const result = await publishEvent(js, n, event, {
      expectedLastSubjectSequence: 0,
      previousDurableSequence: 0,
      prevalidated: true,
    });
    expect(result.kind).toBe('ok');
    const stored = await jsm.streams.getMessage(n.eventsStream, {
      last_by_subj: n.eventSubject('s-pre'),
    });
    expect(stored?.json()).toEqual(event);
  });
});
