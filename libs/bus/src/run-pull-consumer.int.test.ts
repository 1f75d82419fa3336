import { decodeSessionEvent, HEADERS, names, type SessionEvent } from '@agentwire/contracts';
import { activeTraceId, installContextPropagation } from '@agentwire/telemetry';
import { type TestEnvironment, waitUntil } from '@agentwire/testing';
import { type JsMsg, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterStream } from './dead-letter-names.ts';
import { provision } from './provision.ts';
import { publishEvent } from './publish-event.ts';
import { type DecodeResult, runPullConsumer } from './run-pull-consumer.ts';
import { deprovision, durableEvent, setup } from './test-support.ts';

let env: TestEnvironment;
let nc: NatsConnection;
let uninstall: () => void = () => {};

beforeAll(async () => {
  uninstall = installContextPropagation();
  ({ env, nc } = await setup());
  await provision(nc, names(env.prefix), { maxMessageBytes: 64 * 1024 });
});

afterAll(async () => {
  uninstall();
  await deprovision(nc, names(env.prefix));
  await nc.close();
  await env.dispose();
});

function decodeEvent(data: Uint8Array): DecodeResult<SessionEvent> {
  const r = decodeSessionEvent(data);
  return r.ok
    ? { ok: true, value: r.event }
    : { ok: false, code: r.error.code, reason: r.error.message };
}

async function deadLetters(stream: string): Promise<JsMsg[]> {
  const js = jetstream(nc);
  const consumer = await js.consumers.get(stream, {});
  const out: JsMsg[] = [];
  const info = await (await jetstreamManager(nc)).streams.info(stream);
  for (let i = 0; i < info.state.messages; i++) {
    const m = await consumer.next({ expires: 2000 });
    if (m !== null) out.push(m);
  }
  return out;
}

describe('runPullConsumer', () => {
  it('dead-letters poison messages with their reason, retries, and goes on; carries traceparent into the handler', async () => {
    const n = names(env.prefix);
    const js = jetstream(nc);
    const raw = (sid: string, body: string) => js.publish(n.eventSubject(sid), body);

    const remote = {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: TraceFlags.SAMPLED,
    };
    await publishEvent(js, n, durableEvent('s1', 1), {
      previousDurableSequence: 0,
      traceContext: trace.setSpanContext(ROOT_CONTEXT, remote),
    });
    await raw('s2', '{not json');
    await raw('s3', JSON.stringify({ ...durableEvent('s3', 1), type: 'no_such_type' }));
    await raw('s4', JSON.stringify({ ...durableEvent('s4', 1), payload: { reason: 42 } }));
    await raw('s5', JSON.stringify({ ...durableEvent('s5', 1), id: 'reject-me' }));
    await raw('s6', JSON.stringify({ ...durableEvent('s6', 1), id: 'flaky' }));
    const h = headers();
    h.set('X-Big', 'yes');
    await js.publish(n.eventSubject('s7'), new Uint8Array(40 * 1024), { headers: h });
    await publishEvent(js, n, durableEvent('s8', 1), { previousDurableSequence: 0 });

    const handled: string[] = [];
    const traces: (string | undefined)[] = [];
    const attempts = new Map<string, number>();
    const consumer = await runPullConsumer<SessionEvent>({
      js,
      stream: n.eventsStream,
      durable: 'bus-test',
      filterSubject: n.allEventsFilter,
      decode: decodeEvent,
      deadLetterSubject: n.deadLetterSubject('bus-test'),
      maxDeliver: 3,
      backoffMs: [10],
      maxMessageBytes: 32 * 1024,
      handler: async (event, ctx) => {
        attempts.set(event.id, ctx.deliveryCount);
        if (event.id === 'reject-me')
          return { deadLetter: 'session s5 is not ours', code: 'wrong_session' };
        if (event.id === 'flaky') return ctx.deliveryCount < 2 ? 'retry' : 'ack';
        handled.push(event.sessionId);
        traces.push(activeTraceId());
        return 'ack';
      },
    });
    await waitUntil(
      async () => {
        const p = await consumer.pending();
        return p.numPending === 0 && p.numAckPending === 0 && handled.length === 2;
      },
      { what: 'the consumer to drain' },
    );
    await consumer.stop();

    expect(handled).toEqual(['s1', 's8']);
    expect(traces[0]).toBe(remote.traceId);
    expect(attempts.get('flaky')).toBe(2);

    const parked = await deadLetters(deadLetterStream(n));
    const bySubject = new Map(parked.map((m) => [m.headers?.get(HEADERS.deadLetterSubject), m]));
    expect(parked.map((m) => m.subject).every((s) => s === n.deadLetterSubject('bus-test'))).toBe(
      true,
    );
    const code = (sid: string) =>
      bySubject.get(n.eventSubject(sid))?.headers?.get(HEADERS.deadLetterCode);
    const reason = (sid: string) =>
      bySubject.get(n.eventSubject(sid))?.headers?.get(HEADERS.deadLetterReason) ?? '';
    expect(code('s2')).toBe('malformed_json');
    expect(code('s3')).toBe('unknown_event_type');
    expect(reason('s3')).toContain('no_such_type');
    expect(code('s4')).toBe('invalid_payload');
    expect(reason('s4')).toContain('reason');
    expect(code('s5')).toBe('wrong_session');
    expect(code('s7')).toBe('oversized');
    expect(reason('s7')).toContain('40960 bytes');
    expect(bySubject.get(n.eventSubject('s7'))?.headers?.get('X-Big')).toBe('yes');
    expect(new TextDecoder().decode(bySubject.get(n.eventSubject('s2'))?.data)).toBe('{not json');
    expect(parked).toHaveLength(5);
  });

  it('dead-letters a message still failing after maxDeliver deliveries, then processes the next', async () => {
    const n = names(env.prefix);
    const js = jetstream(nc);
    await publishEvent(js, n, durableEvent('r1', 1, 'always-fails'), {
      previousDurableSequence: 0,
    });
    await publishEvent(js, n, durableEvent('r2', 1), { previousDurableSequence: 0 });
    const handled: string[] = [];
    const consumer = await runPullConsumer<SessionEvent>({
      js,
      stream: n.eventsStream,
      durable: 'bus-retry',
      filterSubject: n.eventSubject('r1').replace('.r1.', '.*.'),
      decode: decodeEvent,
      deadLetterSubject: n.deadLetterSubject('bus-retry'),
      maxDeliver: 2,
      backoffMs: [10],
      handler: async (event) => {
        if (event.id === 'always-fails') throw new Error('database unavailable');
        handled.push(event.sessionId);
        return 'ack';
      },
    });
    await waitUntil(
      async () => {
        const p = await consumer.pending();
        return p.numPending === 0 && p.numAckPending === 0 && handled.includes('r2');
      },
      { what: 'the consumer to drain' },
    );
    await consumer.stop();
    const parked = (await deadLetters(deadLetterStream(n))).filter(
      (m) => m.subject === n.deadLetterSubject('bus-retry'),
    );
    expect(parked).toHaveLength(1);
    expect(parked[0]?.headers?.get(HEADERS.deadLetterCode)).toBe('handler_error');
    expect(parked[0]?.headers?.get(HEADERS.deadLetterReason)).toContain('database unavailable');
  });
});
