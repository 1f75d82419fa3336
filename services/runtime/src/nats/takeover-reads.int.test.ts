import type { BusConnection } from '@agentwire/bus';
import { duplicateNumbers, readSessionMessages } from '@agentwire/bus/testing';
import type { Names } from '@agentwire/contracts';
import type { JetStreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedRuntime } from '../start-runtime.ts';
import { startInProcessRuntimes } from '../testing/in-process-runtimes.ts';
import type { RuntimeHostOptions } from './runtime-host.ts';

let bus: BusConnection;
let names: Names;
let a: StartedRuntime;
let b: StartedRuntime;
let stop = async () => {};

/** Reads of a session's last `ev` message that fail on purpose, by session id. */
const failing = new Map<string, number>();

/**
 * Wraps the stream manager so that `getMessage({ last_by_subj: <sid>.ev })` fails while
 * `failing` holds a count for the session: the read a takeover numbers from.
 */
function failingTipReads(o: RuntimeHostOptions): RuntimeHostOptions {
  const streams = o.jsm.streams;
  const getMessage: typeof streams.getMessage = async (stream, query) => {
    for (const [sid, left] of failing) {
      if (left > 0 && query !== undefined && 'last_by_subj' in query) {
        if (query.last_by_subj === o.names.eventSubject(sid)) {
          failing.set(sid, left - 1);
          throw new Error('injected: the stream read timed out');
        }
      }
    }
    return streams.getMessage(stream, query);
  };
  const wrappedStreams = new Proxy(streams, {
    get: (target, prop) => (prop === 'getMessage' ? getMessage : Reflect.get(target, prop, target)),
  });
  const jsm = new Proxy(o.jsm, {
    get: (target, prop) =>
      prop === 'streams' ? wrappedStreams : Reflect.get(target, prop, target),
  }) as JetStreamManager;
  return { ...o, jsm };
}

beforeAll(async () => {
  const started = await startInProcessRuntimes({
    tag: 'takeover-reads',
    instanceIds: ['readsA', 'readsB'],
    wrapHost: { readsB: failingTipReads },
  });
  ({ bus, names, stop } = started);
  [a, b] = started.runtimes;
});

afterAll(() => stop());

/** A session A drove through one turn and then left (lease released). */
async function sessionLeftByA(sid: string): Promise<number> {
  await a.host.activate(sid, 'open');
  const admission = await a.host.resident(sid)?.submit('hello there');
  if (admission?.ok !== true || admission.delivery !== 'startNow') throw new Error('no turn');
  await admission.done;
  const last = a.host.residentEmitter(sid)?.appender.latestSequence ?? 0;
  await a.host.deactivate(sid);
  return last;
}

describe('a takeover whose stream read fails (issue 21, docs/decisions/0110)', () => {
  it('fails cleanly, writes nothing, then succeeds on retry and numbers after the true last', async () => {
    const sid = `reads-${Date.now()}`;
    const last = await sessionLeftByA(sid);
    const before = await readSessionMessages(bus.js, names, sid);

    failing.set(sid, 3); // every attempt of one activation (1 + 2 retries) fails
    await expect(b.host.activate(sid, 'op')).rejects.toMatchObject({
      code: 'takeover_failed',
      detail: { retryable: true },
    });
    expect(b.host.resident(sid)).toBeUndefined();
    expect(b.host.leases.held.has(sid)).toBe(false);
    expect(await readSessionMessages(bus.js, names, sid)).toEqual(before);

    failing.set(sid, 1); // one failure: the activation's own retry gets through
    await b.host.activate(sid, 'op');
    expect(failing.get(sid)).toBe(0);
    const admission = await b.host.resident(sid)?.submit('go on');
    if (admission?.ok !== true || admission.delivery !== 'startNow') throw new Error('no turn');
    expect((await admission.done).status).toBe('complete');

    const after = await readSessionMessages(bus.js, names, sid);
    expect(duplicateNumbers(after)).toEqual(new Map());
    const resumed = after.find((m) => m.event?.type === 'session_resumed');
    expect(resumed?.number).toBe(last + 1);
    // Strictly increasing in stream order (the first turn's transient events were evicted
    // when the second one started, R3.4: those are the only holes).
    const numbers = after.flatMap((m) => (m.number === undefined ? [] : [m.number]));
    expect(numbers.every((n, i) => i === 0 || n > (numbers[i - 1] ?? 0))).toBe(true);
    expect(after.filter((m) => m.subject.endsWith('.ev')).map((m) => m.number)).toEqual(
      before
        .filter((m) => m.subject.endsWith('.ev'))
        .map((m) => m.number)
        .concat(
          after
            .filter((m) => m.subject.endsWith('.ev') && (m.number ?? 0) > last)
            .map((m) => m.number),
        ),
    );
  });
});
