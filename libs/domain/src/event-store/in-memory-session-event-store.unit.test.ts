import type { EventType, SessionEvent } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { describe, expect, it } from 'vitest';
import { EventStoreError } from './event-store-error.ts';
import { InMemorySessionEventStore } from './in-memory-session-event-store.ts';

function setup() {
  let clock = 0;
  const store = new InMemorySessionEventStore({ now: () => clock });
  let n = 0;
  const append = (type: EventType, turnId: string | null, sessionId = 's1') =>
    store.appendSync(sampleSessionEvent(type, { id: `e${++n}`, sessionId, turnId }));
  const types = async (sessionId = 's1') =>
    (await store.readAll(sessionId)).map((e) => `${e.sequenceNumber}:${e.type}:${e.turnId}`);
  return { store, append, types, tick: (ms: number) => (clock += ms) };
}

/** One turn: start, two streaming chunks, a tool progress, a result, the seal. */
function turn(append: ReturnType<typeof setup>['append'], turnId: string): SessionEvent[] {
  return [
    append('turn_started', turnId),
    append('model_streaming', turnId),
    append('model_streaming', turnId),
    append('tool_call_progress', turnId),
    append('tool_call_result', turnId),
    append('turn_complete', turnId),
  ];
}

describe('numbering (R2.2, R2.3, R3.6)', () => {
  it('given two sessions, when events are appended, then each is numbered 1, 2, 3...', async () => {
    const { store, append } = setup();
    expect(append('session_created', null).sequenceNumber).toBe(1);
    expect(append('session_created', null, 's2').sequenceNumber).toBe(1);
    expect(append('turn_started', 't1').sequenceNumber).toBe(2);
    expect(await store.latestSequenceNumber('s1')).toBe(2);
    expect(await store.latestSequenceNumber('nope')).toBe(0);
  });

  it('given a numbered event, when appended, then it is refused with a stable code', () => {
    const { store } = setup();
    const event = sampleSessionEvent('turn_started', { sequenceNumber: 4 });
    expect(() => store.appendSync(event)).toThrow(EventStoreError);
    expect(() => store.appendSync(event)).toThrow(
      expect.objectContaining({ code: 'AW_EVENT_STORE_ALREADY_NUMBERED' }),
    );
  });

  it('given a deleted session, when it appends again, then numbering goes on and nothing is held', async () => {
    const { store, append } = setup();
    append('session_created', null);
    append('turn_started', 't1');
    await store.deleteSession('s1');
    expect(await store.readAll('s1')).toEqual([]);
    expect(await store.latestSequenceNumber('s1')).toBe(2);
    expect(append('session_resumed', null).sequenceNumber).toBe(3);
    expect(store.counters().heldEvents).toBe(1);
  });

  it('given held events, when read after a number, then only later ones come, in order', async () => {
    const { store, append } = setup();
    for (let i = 0; i < 5; i++) append('hook_run_started', null);
    expect((await store.readAfter('s1', 2)).map((e) => e.sequenceNumber)).toEqual([3, 4, 5]);
    expect(await store.readAfter('s1', 5)).toEqual([]);
    expect(await store.readAfter('nope', 0)).toEqual([]);
  });
});

describe('turn-window retention (R3.3, R3.4)', () => {
  it('given a sealed turn, when nothing else happens, then its transient events stay (one turn of lag)', async () => {
    const { types, append } = setup();
    turn(append, 't1');
    expect(await types()).toHaveLength(6);
  });

  it('given a sealed turn, when the next turn starts, then only its transient events are evicted', async () => {
    const { store, types, append } = setup();
    turn(append, 't1');
    append('turn_started', 't2');
    append('model_streaming', 't2');
    expect(await types()).toEqual([
      '1:turn_started:t1',
      '5:tool_call_result:t1',
      '6:turn_complete:t1',
      '7:turn_started:t2',
      '8:model_streaming:t2',
    ]);
    expect(store.counters()).toEqual({ sessions: 1, heldEvents: 5, evictedEvents: 3 });
  });

  it('given an unsealed turn, when another turn starts, then nothing of it is evicted', async () => {
    const { types, append } = setup();
    append('turn_started', 't1');
    append('model_streaming', 't1');
    append('turn_started', 't2');
    expect(await types()).toContain('2:model_streaming:t1');
  });

  it('given an evicted turn, when a late transient event arrives, then it is numbered but not kept', async () => {
    const { store, types, append } = setup();
    turn(append, 't1');
    append('turn_started', 't2');
    const late = append('model_streaming', 't1');
    expect(late.sequenceNumber).toBe(8);
    expect(await types()).not.toContain('8:model_streaming:t1');
    expect(store.counters().evictedEvents).toBe(4);
  });

  it('given transient events of another session, when a turn starts, then they are untouched', async () => {
    const { types, append } = setup();
    turn(append, 't1');
    append('model_streaming', 't1', 's2');
    append('turn_complete', 't1', 's2');
    append('turn_started', 't2');
    expect(await types('s2')).toEqual(['1:model_streaming:t1', '2:turn_complete:t1']);
  });
});

describe('the sampling sweep (R3.5)', () => {
  it('given a single sealed turn, when swept after 120 s, then it stays; after more, it goes', async () => {
    const { store, types, append, tick } = setup();
    turn(append, 't1');
    tick(120_000);
    expect(store.sweep()).toBe(0);
    tick(1);
    expect(store.sweep()).toBe(3);
    expect(await types()).toEqual([
      '1:turn_started:t1',
      '5:tool_call_result:t1',
      '6:turn_complete:t1',
    ]);
  });

  it('given a running turn, when swept much later, then nothing is evicted', async () => {
    const { store, append, tick } = setup();
    append('turn_started', 't1');
    append('model_streaming', 't1');
    tick(3_600_000);
    expect(store.sweep()).toBe(0);
  });
});
