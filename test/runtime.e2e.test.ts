import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type BusConnection, openTurns } from '@agentwire/bus';
import type { Names } from '@agentwire/contracts';
import { collapsedTypes, TWO_TOOLS_TURN_TYPES } from '@agentwire/engine/testing';
import type { ServiceProcess, WireDriver } from '@agentwire/runtime/testing';
import { type RuntimeStack, startRuntimeStack } from '@agentwire/runtime/testing';
import type { createDatabase } from '@agentwire/store';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let stack: RuntimeStack;
let bus: BusConnection;
let client: WireDriver;
let runtime: ServiceProcess;
let workspace: string;
let db: ReturnType<typeof createDatabase>;
const names = (): Names => stack.names;
const startRuntime = (instanceId: string) => stack.startRuntime(instanceId);

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'runtime-e2e',
      runtimeEnv: { AW_PERMISSION_TIMEOUT_MS: '20000', AW_MAX_PROMPT_BYTES: '4096' },
    },
    ['rtA'],
  );
  ({ bus, client, workspace, db } = stack);
  const started = stack.runtimes.get('rtA');
  if (started === undefined) throw new Error('runtime rtA did not start');
  runtime = started;
});

afterAll(async () => {
  await stack?.stop();
});

async function openSession(): Promise<string> {
  const reply = await client.open();
  if (!reply.ok) throw new Error(reply.error.message);
  return String(reply.sessionId);
}

describe('runtime service (issue 6)', () => {
  it('runs a scripted turn with streamed text and two tool calls, one permission answered by a frontend', async () => {
    const sid = await openSession();
    const follow = client.follow(sid, 0, { answer: 'allow' });
    const reply = await client.runTurn(sid, '[scenario:two_tools] tidy the workspace', follow);
    expect(reply).toMatchObject({
      ok: true,
      status: 'complete',
      response: 'Done: read README.md and wrote notes.txt.',
    });
    await follow.stop();
    expect(collapsedTypes(follow.events)).toEqual(TWO_TOOLS_TURN_TYPES);
    expect(follow.events.map((e) => e.sequenceNumber)).toEqual(follow.events.map((_, i) => i + 1));
    expect(await readFile(path.join(workspace, 'notes.txt'), 'utf8')).toBe(
      'hello from agentwire\n',
    );

    await waitUntil(
      async () => {
        const parts = await db
          .selectFrom('parts')
          .select(['status'])
          .where('session_id', '=', sid)
          .where('type', '=', 'tool')
          .execute();
        return parts.length === 2 && parts.every((p) => p.status === 'completed');
      },
      { timeoutMs: 10_000, what: 'tool parts completed' },
    );
    const messages = await db
      .selectFrom('messages')
      .select(['role', 'data'])
      .where('session_id', '=', sid)
      .orderBy('created_at')
      .execute();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(messages[1]?.data).toMatchObject({
      providerId: 'scripted',
      modelId: 'scripted-1',
      path: { root: workspace },
    });
    const session = await db
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', sid)
      .executeTakeFirstOrThrow();
    expect(session).toMatchObject({
      title: '[scenario:two_tools] tidy the workspace',
      title_source: 'first_input',
    });
  });

  it('answers at least eight bad inputs with typed errors and loses nothing already accepted', async () => {
    const sid = await openSession();
    const first = await client.op(sid, 'prompt', { text: 'first prompt', wait: true });
    expect(first).toMatchObject({ ok: true, status: 'complete' });
    const p = names().prefix;
    const cases: [string, Promise<{ ok: boolean; error?: { code: string } }>][] = [
      ['unknown op', client.op(sid, 'explode', {})],
      [
        'malformed JSON',
        client.request(`${p}.rt.${sid}.prompt`, new TextEncoder().encode('{"text":')),
      ],
      ['wrong field type', client.op(sid, 'prompt', { text: 42 })],
      ['unexpected field', client.op(sid, 'rename', { title: 'x', colour: 'red' })],
      ['prompt to an unknown session', client.op('no-such-session', 'prompt', { text: 'hello' })],
      ['oversized prompt', client.op(sid, 'prompt', { text: 'x'.repeat(5000) })],
      ['empty prompt', client.op(sid, 'prompt', { text: '   ' })],
      [
        'unknown permission request',
        client.op(sid, 'answer_permission', { requestId: 'nope', decision: 'allow' }),
      ],
      ['interrupt without a turn', client.op(sid, 'interrupt', {})],
      [
        'open with an invalid session id',
        client.request(`${p}.rt.open`, { sessionId: 'has spaces' }),
      ],
      ['create an existing session', client.op(sid, 'create', {})],
    ];
    const codes = Object.fromEntries(
      await Promise.all(cases.map(async ([what, reply]) => [what, (await reply).error?.code])),
    );
    expect(codes).toEqual({
      'unknown op': 'unknown_op',
      'malformed JSON': 'invalid_request',
      'wrong field type': 'invalid_request',
      'unexpected field': 'invalid_request',
      'prompt to an unknown session': 'unknown_session',
      'oversized prompt': 'prompt_too_large',
      'empty prompt': 'empty_input',
      'unknown permission request': 'unknown_permission_request',
      'interrupt without a turn': 'no_active_turn',
      'open with an invalid session id': 'invalid_request',
      'create an existing session': 'session_exists',
    });

    const fresh = `fresh-${Date.now()}`;
    expect(await client.op(fresh, 'create', {})).toMatchObject({ ok: true, sessionId: fresh });
    expect(await client.op(fresh, 'create', {})).toMatchObject({
      ok: false,
      error: { code: 'session_exists' },
    });

    const follow = client.follow(sid, 0);
    const outside = await client.op(sid, 'prompt', { text: '[scenario:outside_path]', wait: true });
    expect(outside).toMatchObject({ ok: true, status: 'complete' });
    await waitUntil(() => follow.events.filter((e) => e.type === 'turn_complete').length === 2, {
      timeoutMs: 10_000,
      what: 'two turns',
    });
    await follow.stop();
    const toolError = follow.events.find((e) => e.type === 'tool_call_error');
    expect(toolError?.payload).toMatchObject({ error: { code: 'path_outside_workspace' } });
    expect(follow.events.map((e) => e.sequenceNumber)).toEqual(
      [...follow.events.map((e) => e.sequenceNumber)].sort((a, b) => a - b),
    );
    // R3.4: the first turn's transient subject was purged when the second turn started.
    const turnIds = follow.events.filter((e) => e.type === 'turn_started').map((e) => e.turnId);
    expect((await openTurns(bus.jsm, names(), sid)).map((t) => t.turnId)).toEqual([turnIds[1]]);
    const starts = follow.events.filter((e) => e.type === 'turn_started').map((e) => e.payload);
    expect(starts.map((s) => s.input)).toEqual(['first prompt', '[scenario:outside_path]']);
    await waitUntil(
      async () => {
        const rows = await db
          .selectFrom('messages')
          .select('role')
          .where('session_id', '=', sid)
          .where('role', '=', 'user')
          .execute();
        return rows.length === 2;
      },
      { timeoutMs: 10_000, what: 'both user messages persisted' },
    );
  });

  it('a follower that disconnects mid-turn resumes from its last number exactly once, also across a runtime restart', async () => {
    const sid = await openSession();
    const early = client.follow(sid, 0);
    const ticket = client.op(sid, 'prompt', { text: '[scenario:slow_text] go', wait: true });
    await waitUntil(() => early.events.filter((e) => e.type === 'model_streaming').length >= 5, {
      timeoutMs: 10_000,
      what: 'streaming',
    });
    await early.stop();
    const last = early.events.at(-1)?.sequenceNumber ?? 0;
    const late = client.follow(sid, last);
    await ticket;
    await waitUntil(() => late.events.at(-1)?.type === 'turn_complete', {
      timeoutMs: 10_000,
      what: 'turn_complete',
    });
    await late.stop();
    const seen = [...early.events, ...late.events].map((e) => e.sequenceNumber);
    expect(seen).toEqual(seen.map((_, i) => i + 1));

    // Restart the runtime process; the follower comes back with its last number.
    const resumeFrom = seen.at(-1) ?? 0;
    runtime.kill('SIGTERM');
    expect(await runtime.exited).toBe(0);
    runtime = await startRuntime('rtA2');
    const after = client.follow(sid, resumeFrom);
    const reply = await client.runTurn(sid, 'after the restart', after);
    expect(reply).toMatchObject({ ok: true, status: 'complete' });
    await after.stop();
    const numbers = after.events.map((e) => e.sequenceNumber);
    expect(numbers[0]).toBe(resumeFrom + 1);
    expect(numbers).toEqual(numbers.map((_, i) => resumeFrom + 1 + i));
    expect(after.events.find((e) => e.type === 'turn_started')?.payload).toMatchObject({
      turnNumber: 1,
    });
  });

  it('serves health, readiness and metrics', async () => {
    const listening = runtime.lines.find((l) => l.includes('runtime http listening'));
    const port = (JSON.parse(listening ?? '{}') as { port?: number }).port;
    expect(port).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${port}`;
    expect(await (await fetch(`${base}/healthz`)).json()).toMatchObject({
      status: 'alive',
      service: 'runtime',
    });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', detail: { instanceId: 'rtA2' } });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('agentwire_runtime_events_appended');
  });

  it('on SIGTERM interrupts the running turn cleanly, exits 0 and releases the lease', async () => {
    const sid = await openSession();
    const follow = client.follow(sid, 0);
    await client.op(sid, 'prompt', { text: '[scenario:slow_text] long answer' });
    await waitUntil(() => follow.events.filter((e) => e.type === 'model_streaming').length >= 3, {
      timeoutMs: 10_000,
      what: 'streaming',
    });
    runtime.kill('SIGTERM');
    expect(await runtime.exited).toBe(0);
    await waitUntil(() => follow.events.at(-1)?.type === 'turn_complete', {
      timeoutMs: 10_000,
      what: 'turn closed',
    });
    await follow.stop();
    expect(follow.events.at(-1)?.payload).toMatchObject({ resultType: 'cancelled' });
    const n = names();
    const lease = await bus.jsm.streams.getMessage(`KV_${n.leaseBucket}`, {
      last_by_subj: `$KV.${n.leaseBucket}.${sid}`,
    });
    expect(lease?.header?.get('KV-Operation')).toBe('DEL');
  });
});
