import { setTimeout as holdFor } from 'node:timers/promises';
import { openSse, type Stack, startStack } from '@agentwire/gateway/testing';
import {
  createTestEnvironment,
  type NatsServerProcess,
  startNatsServer,
  type TestEnvironment,
  waitUntil,
} from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The runtime's outage bound in this test, and the outage: well past it. */
const BOUND_MS = 1_500;
const OUTAGE_MS = 4_000;

let nats: NatsServerProcess;
let env: TestEnvironment;
let stack: Stack;
let base: string;

beforeAll(async () => {
  nats = await startNatsServer();
  env = await createTestEnvironment();
  stack = await startStack(
    { natsUrl: nats.url, databaseUrl: env.databaseUrl, prefix: env.prefix },
    {
      gateway: true,
      gatewayEnv: { AW_GATEWAY_HEARTBEAT_MS: '500' },
      // A streamed answer of 40 words at 150 ms: the turn is publishing when the broker goes.
      serviceEnv: {
        runtime: { AW_BROKER_OUTAGE_MS: String(BOUND_MS), AW_SCRIPTED_CHUNK_DELAY_MS: '150' },
      },
    },
  );
  base = stack.gatewayUrl ?? '';
});

afterAll(async () => {
  await stack?.stop();
  await env?.dispose();
  await nats?.dispose();
});

interface Reply {
  readonly status: number;
  readonly json: { readonly sessionId?: string; readonly turnId?: string };
}

/** POSTs `body`, retrying while the gateway cannot be reached. */
async function post(path: string, body?: unknown): Promise<Reply> {
  for (;;) {
    try {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        ...(body === undefined
          ? {}
          : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      return { status: res.status, json: (await res.json()) as Reply['json'] };
    } catch {
      await holdFor(200);
    }
  }
}

describe('a broker outage past the bound (issue 9)', () => {
  it('ends the turn in flight as turn_error broker_unavailable once the broker is back; nothing lost, the session goes on', {
    timeout: 180_000,
  }, async () => {
    const opened = await post('/sessions');
    expect(opened.status).toBe(201);
    const sid = String(opened.json.sessionId);
    const sse = await openSse(`${base}/sessions/${sid}/events?after=0`);
    const first = await post(`/sessions/${sid}/prompt`, {
      text: '[scenario:slow_text] tell me a long story',
      inputId: `${sid}-1`,
    });
    expect(first.status).toBe(202);
    const turnId = String(first.json.turnId);
    await waitUntil(() => sse.events.some((e) => e.type === 'model_streaming'), {
      timeoutMs: 30_000,
      what: 'the answer streaming',
    });

    await nats.stop();
    await holdFor(OUTAGE_MS);
    await nats.start();

    await waitUntil(() => sse.events.some((e) => e.type === 'turn_error' && e.turnId === turnId), {
      timeoutMs: 60_000,
      what: 'the turn ended',
    });
    const ended = sse.events.find((e) => e.type === 'turn_error' && e.turnId === turnId);
    expect(ended?.payload).toMatchObject({
      turnPhase: 'broker',
      error: { code: 'broker_unavailable', type: 'broker_unavailable' },
    });
    expect(sse.events.filter((e) => e.type === 'turn_complete' && e.turnId === turnId)).toEqual([]);

    // The session is not broken and was not lost: the next prompt runs to turn_complete.
    const second = await post(`/sessions/${sid}/prompt`, {
      text: '[scenario:streamed_text] and now a short one',
      inputId: `${sid}-2`,
    });
    expect(second.status).toBe(202);
    await waitUntil(
      () => sse.events.some((e) => e.type === 'turn_complete' && e.turnId === second.json.turnId),
      { timeoutMs: 60_000, what: 'the next turn' },
    );
    const seqs = sse.events.map((e) => e.sequenceNumber);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const reasons = JSON.stringify(sse.events.map((e) => e.payload));
    expect(reasons).not.toContain('runtime_lost');
    sse.abort();
  });
});
