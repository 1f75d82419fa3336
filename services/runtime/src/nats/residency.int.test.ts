import { lastMessageOn } from '@agentwire/bus';
import { startTurn } from '@agentwire/engine/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedRuntime } from '../start-runtime.ts';
import { type InProcessRuntimes, startInProcessRuntimes } from '../testing/in-process-runtimes.ts';

let rt: StartedRuntime;
let started: InProcessRuntimes<readonly [string]>;
let stop = async () => {};

beforeAll(async () => {
  started = await startInProcessRuntimes({
    tag: 'residency',
    instanceIds: ['residency'],
    env: {
      AW_CONFIRM_TIMEOUT_MS: '100',
      AW_RESIDENT_TARGET: '0',
      AW_RESIDENT_HIGH_WATER: '0',
      AW_RESIDENT_IDLE_MS: '60000',
    },
  });
  ({ stop } = started);
  [rt] = started.runtimes;
});

afterAll(() => stop());

describe('residency (R11)', () => {
  it('reclaims only persisted, idle sessions, releases their lease, and cold-recovers them with numbering intact', async () => {
    const host = rt.host;
    await host.activate('persisted-one', 'open');
    await host.activate('never-prompted', 'open');
    await (await startTurn(host.resident('persisted-one'), 'hello')).done;

    // A running turn is in-flight work: not reclaimable (R11.2).
    const slow = await startTurn(
      host.resident('persisted-one'),
      '[scenario:run_command] wait for me',
      { inputId: 'in-slow' },
    );
    expect(await host.rebalance(Date.now() + 3_600_000)).toEqual([]);
    // Past its preparation (an interrupt before re-queues it, R12.5): the turn itself stops.
    await waitUntil(() => host.resident('persisted-one')?.actionState('in-slow') === 'running', {
      what: 'the slow turn running',
    });
    host.resident('persisted-one')?.interrupt();
    await slow?.done;
    const lastAtReclaim = host.residentEmitter('persisted-one')?.appender.latestSequence ?? 0;
    expect(lastAtReclaim).toBeGreaterThan(0);

    // Above high water (0): the LRU phase reclaims what is eligible; never-prompted is not persisted.
    expect(await host.rebalance(Date.now())).toEqual(['persisted-one']);
    expect(host.residentSessionIds).toEqual(['never-prompted']);
    expect(host.leases.held.has('persisted-one')).toBe(false);

    // The reload's first event is session_resumed, numbered right after the last one.
    await host.activate('persisted-one', 'op');
    const emitter = host.residentEmitter('persisted-one');
    expect(emitter?.appender.latestSequence).toBe(lastAtReclaim + 1);
    const resumed = await lastMessageOn(
      started.bus.jsm,
      started.names.eventsStream,
      started.names.eventSubject('persisted-one'),
    );
    expect(resumed?.json()).toMatchObject({
      type: 'session_resumed',
      sequenceNumber: lastAtReclaim + 1,
      payload: { reason: 'cold_recovery', owner: rt.instanceId },
    });
    const outcome = await (await startTurn(host.resident('persisted-one'), 'after reclaim')).done;
    expect(outcome?.status).toBe('complete');
  });
});
