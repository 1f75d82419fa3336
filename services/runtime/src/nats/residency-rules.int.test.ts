import type { BusConnection } from '@agentwire/bus';
import type { Names } from '@agentwire/contracts';
import type { EvictionReason } from '@agentwire/domain';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedRuntime } from '../start-runtime.ts';
import { startInProcessRuntimes } from '../testing/in-process-runtimes.ts';
import type { RuntimeHostOptions } from './runtime-host.ts';

/** The host's clock, moved by the test (R16.6 rules with an injected clock). */
let now = 1_800_000_000_000;
const reclaimed: [string, EvictionReason][] = [];
/** Called as each reclaim is decided, before the session goes: lets a test act in between. */
let beforeReclaim: (reason: EvictionReason) => void = () => {};

function controlled(o: RuntimeHostOptions): RuntimeHostOptions {
  return {
    ...o,
    clock: { now: () => now },
    residencyMetrics: {
      reclaimed: (reason) => {
        reclaimed.push([`#${reclaimed.length}`, reason]);
        beforeReclaim(reason);
      },
      loaded: () => {},
    },
  };
}

let rt: StartedRuntime;
let bus: BusConnection;
let names: Names;
let stop = async () => {};

beforeAll(async () => {
  const started = await startInProcessRuntimes({
    tag: 'residency-rules',
    instanceIds: ['rules'],
    env: {
      AW_RESIDENT_TARGET: '1',
      AW_RESIDENT_HIGH_WATER: '2',
      AW_RESIDENT_IDLE_MS: '60000',
    },
    wrapHost: { rules: controlled },
  });
  ({ stop, bus, names } = started);
  [rt] = started.runtimes;
});

afterAll(() => stop());

/** Opens `sid` on the host and runs one turn in it, so that it is persisted and idle. */
async function idleSession(sid: string): Promise<void> {
  await rt.host.activate(sid, 'open');
  const admission = await rt.host.resident(sid)?.submit(`hello ${sid}`);
  if (admission?.ok !== true || admission.delivery !== 'startNow') throw new Error('no turn');
  await admission.done;
}

describe('residency rules in the host, with an injected clock (R11, R16.6)', () => {
  it('the idle phase reclaims only sessions eligible for the idle timeout', async () => {
    await idleSession('idle-a');
    expect(await rt.host.rebalance(now)).toEqual([]); // first seen eligible: stamped, kept
    now += 59_999;
    expect(await rt.host.rebalance(now)).toEqual([]);
    now += 1;
    expect(await rt.host.rebalance(now)).toEqual(['idle-a']);
    expect(rt.host.residentSessionIds).not.toContain('idle-a');
  });

  it('the LRU phase runs only above high water, down to the target, least recently used first', async () => {
    for (const sid of ['lru-1', 'lru-2']) {
      await idleSession(sid);
      now += 10;
    }
    expect(await rt.host.rebalance(now)).toEqual([]); // 2 resident: not above high water (2)
    await idleSession('lru-3');
    now += 10;
    expect(await rt.host.rebalance(now)).toEqual(['lru-1', 'lru-2']);
    expect(rt.host.residentSessionIds).toEqual(['lru-3']);
    await rt.host.deactivate('lru-3');
  });

  it('re-reads the facts right before each eviction: a session busy by then stays', async () => {
    for (const sid of ['busy-1', 'busy-2']) await idleSession(sid);
    expect(await rt.host.rebalance(now)).toEqual([]); // both stamped eligible now
    now += 60_000;
    // As busy-1 is reclaimed, busy-2 starts a turn: the plan had it, the re-read does not.
    let started: Promise<unknown> | undefined;
    beforeReclaim = () => {
      beforeReclaim = () => {};
      const session = rt.host.resident('busy-2');
      started = session
        ?.submit('[scenario:slow_text] keep me')
        .then((a) => (a.ok && a.delivery === 'startNow' ? a.done : undefined));
    };
    expect(await rt.host.rebalance(now)).toEqual(['busy-1']);
    expect(rt.host.residentSessionIds).toContain('busy-2');
    await started;
    await rt.host.deactivate('busy-2');
  });

  it('rebalances when an operation ends, not only on the tick', async () => {
    await idleSession('op-idle');
    await idleSession('op-busy');
    expect(await rt.host.rebalance(now)).toEqual([]); // both stamped eligible now
    now += 60_000;
    // An operation on op-busy (an interrupt with nothing running: no worker needed): when
    // it ends, the idle phase reclaims both idle sessions.
    const reply = await bus.nc.request(`${names.prefix}.rt.op-busy.interrupt`, '{}', {
      timeout: 15_000,
    });
    expect(reply.json()).toMatchObject({ ok: false, error: { code: 'no_active_turn' } });
    await waitUntil(() => rt.host.residentSessionIds.length === 0, {
      what: 'the reclaim after the operation',
    });
    expect(reclaimed.slice(-2).map(([, reason]) => reason)).toEqual([
      'idle_timeout',
      'idle_timeout',
    ]);
  });
});
