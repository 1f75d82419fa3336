import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  collapsedTypes,
  createSessionHarness,
  RecordingWriter,
  startTurn,
  TWO_TOOLS_TURN_TYPES,
} from '@agentwire/engine/testing';
import { TWO_TOOLS_WRITTEN } from '@agentwire/model';
import { waitUntil } from '@agentwire/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { createWorkspaceTools } from './tools/workspace-tools.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'aw-rt-'));
  await writeFile(path.join(root, 'README.md'), '# demo workspace\n');
});

function setup(
  options: { permissionTimeoutMs?: number; evicted?: string[]; failAssistant?: boolean } = {},
) {
  const writer = new RecordingWriter();
  if (options.failAssistant === true) {
    writer.saveAssistantMessage = async () => {
      throw new Error('commands stream unavailable');
    };
  }
  const { session, appender, events, publisher } = createSessionHarness({
    toolSet: createWorkspaceTools({ root }),
    root,
    writer,
    permissionTimeoutMs: options.permissionTimeoutMs ?? 5_000,
    evictSealedTurn: async (turnId) => {
      options.evicted?.push(turnId);
    },
  });
  /** Answers every permission request as it appears. */
  const answerAll = (decision: 'allow' | 'deny') =>
    appender.addSink({
      name: 'frontend',
      onSessionEvent: (e) => {
        if (e.type === 'permission_requested' && e.payload.requestId !== undefined) {
          session.answerPermission(e.payload.requestId, { decision });
        }
      },
    });
  return { session, publisher, writer, events, answerAll };
}

describe('a turn (issue 6, item 3)', () => {
  it('streams text + two tool calls, one asking permission, with gapless numbers and the R7 writes', async () => {
    const { session, publisher, writer, events, answerAll } = setup();
    answerAll('allow');
    const outcome = await (await startTurn(session, '[scenario:two_tools] tidy the workspace'))
      .done;
    expect(outcome.status).toBe('complete');
    // No checkpoint store here, so no checkpoint before the write.
    expect(collapsedTypes(events)).toEqual(
      TWO_TOOLS_TURN_TYPES.filter((t) => t !== 'checkpoint_created'),
    );
    expect(events.map((e) => e.sequenceNumber)).toEqual(events.map((_, i) => i + 1));
    const queued = events.find((e) => e.type === 'turn_steer_queued');
    const promoted = events.find((e) => e.type === 'session_input_promoted');
    const started = events.find((e) => e.type === 'turn_started');
    const inputId = queued?.type === 'turn_steer_queued' ? queued.payload.pendingInputId : 'none';
    expect(promoted?.payload).toMatchObject({
      pendingInputId: inputId,
      messageId: started?.payload.messageId,
    });
    expect(started?.payload).toMatchObject({ inputId });
    expect(publisher.published.map((p) => p.event)).toEqual(events);
    expect(await readFile(path.join(root, 'notes.txt'), 'utf8')).toBe(TWO_TOOLS_WRITTEN);
    const complete = events.find((e) => e.type === 'model_complete');
    expect(complete?.payload).toMatchObject({
      querySource: 'main_turn',
      usage: { totalTokens: expect.any(Number) },
    });
    const kinds = writer.calls.map((c) => c.kind);
    expect(kinds.slice(0, 2)).toEqual(['ensure_session', 'save_user_message']);
    expect(kinds.filter((k) => k === 'save_assistant_message').length).toBe(2);
    const toolStates = writer.calls
      .filter((c) => c.kind === 'save_part' && (c.value as { type: string }).type === 'tool')
      .map((c) => {
        const v = c.value as { id: string; state: { status: string } };
        return `${v.id.split('.')[1]}:${v.state.status}`;
      });
    expect(toolStates).toEqual([
      'call_1_0:pending',
      'call_1_1:pending',
      'call_1_0:running',
      'call_1_0:completed',
      'call_1_1:running',
      'call_1_1:completed',
    ]);
    const completed = writer.calls.find(
      (c) =>
        c.kind === 'save_part' &&
        (c.value as { state?: { status: string } }).state?.status === 'completed',
    );
    expect(completed?.value).toMatchObject({
      state: {
        metadata: {
          schemaVersion: 1,
          serialization: { truncated: false },
          filesRead: [{ path: 'README.md', readAt: expect.any(Number) }],
        },
      },
    });
  });

  it('sets the first-input title once (R9.2) and keeps a custom rename', async () => {
    const { session, events, writer } = setup();
    await (await startTurn(session, '   fix   the\n build  ')).done;
    await (await startTurn(session, 'second prompt')).done;
    const titles = events.filter((e) => e.type === 'session_title_updated').map((e) => e.payload);
    expect(titles).toEqual([
      {
        title: 'fix the build',
        previousTitle: null,
        source: 'first_input',
        messageId: expect.any(String),
      },
    ]);
    await session.rename('My session');
    expect(events.at(-1)?.payload).toEqual({
      title: 'My session',
      previousTitle: 'fix the build',
      source: 'custom',
    });
    expect(writer.calls.filter((c) => c.kind === 'ensure_session').length).toBe(1);
  });

  it('a denied permission becomes permission_denied + tool_call_error, and the file is not written', async () => {
    const { session, events, writer, answerAll } = setup();
    answerAll('deny');
    await (await startTurn(session, '[scenario:two_tools]')).done;
    const types = events.map((e) => e.type);
    expect(types).toContain('permission_denied');
    const error = events.find((e) => e.type === 'tool_call_error');
    expect(error?.payload).toMatchObject({
      toolName: 'write_file',
      error: { code: 'permission_denied' },
    });
    await expect(readFile(path.join(root, 'notes.txt'), 'utf8')).rejects.toThrow();
    const last = writer.calls
      .filter((c) => (c.value as { type?: string }).type === 'tool')
      .at(-1)?.value;
    expect(last).toMatchObject({ toolName: 'write_file', state: { status: 'error' } });
  });

  it('an unanswered permission request times out as a denial', async () => {
    const { session, events } = setup({ permissionTimeoutMs: 20 });
    await (await startTurn(session, '[scenario:run_command]')).done;
    expect(events.find((e) => e.type === 'permission_denied')?.payload).toMatchObject({
      reason: 'no answer before the timeout',
    });
    expect(events.at(-1)?.type).toBe('turn_complete');
  });

  it('a model error ends the turn as turn_error after model_error, with the assistant message marked', async () => {
    const { session, events, writer } = setup();
    const outcome = await (await startTurn(session, '[scenario:model_error]')).done;
    expect(outcome.status).toBe('error');
    const types = events.map((e) => e.type);
    expect(types.slice(-2)).toEqual(['model_error', 'turn_error']);
    expect(events.at(-1)?.payload).toMatchObject({
      turnPhase: 'model_stream',
      error: { code: 'provider_unavailable' },
    });
    const assistant = writer.calls.find((c) => c.kind === 'save_assistant_message')?.value;
    expect(assistant).toMatchObject({ error: { code: 'provider_unavailable' } });
  });

  it('a path outside the workspace is a tool error, and the turn goes on', async () => {
    const { session, events } = setup();
    await (await startTurn(session, '[scenario:outside_path]')).done;
    expect(events.find((e) => e.type === 'tool_call_error')?.payload).toMatchObject({
      error: { code: 'path_outside_workspace' },
    });
    expect(events.at(-1)?.type).toBe('turn_complete');
  });

  it('stores an empty tool name as empty_tool_name with the original in metadata (R7.6)', async () => {
    const { session, writer } = setup();
    await (await startTurn(session, '[scenario:empty_tool_name]')).done;
    const part = writer.calls.find(
      (c) => c.kind === 'save_part' && (c.value as { type: string }).type === 'tool',
    );
    expect(part?.value).toMatchObject({
      toolName: 'empty_tool_name',
      state: { status: 'pending' },
      metadata: { originalToolName: '' },
    });
  });

  it('queues a second input while a turn runs, and interrupt cancels the turn', async () => {
    const { session, events } = setup();
    const ticket = await startTurn(session, '[scenario:run_command]');
    expect(await session.submit('again')).toMatchObject({
      ok: true,
      delivery: 'queue',
      targetTurnId: ticket.turnId,
    });
    await waitUntil(() => events.some((e) => e.type === 'permission_requested'), {
      timeoutMs: 2_000,
      intervalMs: 2,
      what: 'the permission request',
    });
    session.interrupt();
    expect((await ticket.done).status).toBe('cancelled');
    const ended = events.find((e) => e.type === 'turn_complete' && e.turnId === ticket.turnId);
    expect(ended?.payload).toMatchObject({ resultType: 'cancelled' });
    expect(events.find((e) => e.type === 'tool_call_error')?.payload).toMatchObject({
      error: { code: 'interrupted' },
    });
  });

  it('a prompt right after turn_complete is appended starts its own turn at once (issue 9)', async () => {
    const { session, publisher } = setup();
    // The broker has turn_complete (a follower saw it), its ack has not come back yet.
    const release = publisher.hold('turn_complete');
    const first = await session.submit('hello');
    await waitUntil(() => publisher.waiting.has('turn_complete'), { what: 'turn_complete sent' });
    const second = await session.submit('and again');
    expect(second).toMatchObject({ ok: true, delivery: 'startNow' });
    release();
    if (!first.ok || first.delivery !== 'startNow') throw new Error('first did not start');
    if (!second.ok || second.delivery !== 'startNow') throw new Error('second did not start');
    expect((await first.done).status).toBe('complete');
    expect((await second.done).status).toBe('complete');
    const turns = publisher.published.filter((p) => p.event.type === 'turn_started');
    expect(turns.map((p) => p.event.turnId)).toEqual([first.turnId, second.turnId]);
    expect(
      turns.map((p) => (p.event.type === 'turn_started' ? p.event.payload.turnNumber : -1)),
    ).toEqual([0, 1]);
    const firstEnd = publisher.types().indexOf('turn_complete');
    expect(publisher.types().indexOf('turn_steer_queued', firstEnd)).toBeGreaterThan(firstEnd);
  });

  it('keeps the conversation across turns for the model', async () => {
    const { session } = setup();
    await (await startTurn(session, 'one')).done;
    await (await startTurn(session, 'two')).done;
    expect(session.history.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(session.turnCount).toBe(2);
  });
});

describe('workspace confinement', () => {
  it('creates nested directories only inside the root', async () => {
    const tools = new Map(createWorkspaceTools({ root }).map((t) => [t.name, t]));
    await tools
      .get('write_file')
      ?.run({ path: 'a/b/c.txt', content: 'x' }, new AbortController().signal);
    await mkdir(path.join(root, 'd'));
    const listing = await tools.get('list_dir')?.run({ path: '.' }, new AbortController().signal);
    expect(listing?.content.split('\n')).toEqual(['README.md', 'a/', 'd/']);
  });
});

describe('turn-window retention (R3.4, R3.5)', () => {
  it('evicts the sealed turn when the next turn starts', async () => {
    const evicted: string[] = [];
    const { session } = setup({ evicted });
    const first = await startTurn(session, 'one');
    await first.done;
    expect(evicted).toEqual([]);
    await (await startTurn(session, 'two')).done;
    expect(evicted).toEqual([first.turnId]);
  });

  it('sweeps a turn sealed more than 120 s ago in a session that starts no other turn, once', async () => {
    const evicted: string[] = [];
    const { session, events } = setup({ evicted });
    const only = await startTurn(session, 'only turn');
    await only.done;
    const sealedAt = events.at(-1)?.timestamp ?? 0;
    expect(await session.sweepTransient(sealedAt + 60_000)).toBe(false);
    expect(await session.sweepTransient(sealedAt + 130_000)).toBe(true);
    expect(evicted).toEqual([only.turnId]);
    expect(await session.sweepTransient(sealedAt + 400_000)).toBe(false);
  });
});

describe('a turn whose loop throws', () => {
  it('is sealed with turn_error (phase runtime) instead of being left open', async () => {
    const { session, events } = setup({ failAssistant: true });
    await expect((await startTurn(session, 'hello')).done).rejects.toThrow(
      'commands stream unavailable',
    );
    expect(events.at(-1)).toMatchObject({
      type: 'turn_error',
      payload: {
        turnPhase: 'runtime',
        error: { code: 'runtime_error', message: 'commands stream unavailable' },
      },
    });
    expect(
      (await (await startTurn(session, 'again')).done.catch((e: unknown) => e)) instanceof Error,
    ).toBe(true);
    expect(session.turnCount).toBe(2);
  });
});

describe('a turn that ends early settles what it opened (issue 20)', () => {
  const waitFor = (events: { type: string }[], type: string) =>
    waitUntil(() => events.some((e) => e.type === type), {
      timeoutMs: 2_000,
      intervalMs: 2,
      what: type,
    });

  it('interrupted while a permission waits: the request is denied as interrupted, by its id, before its call fails', async () => {
    const { session, events } = setup();
    const ticket = await startTurn(session, '[scenario:two_tools] read and write');
    await waitFor(events, 'permission_requested');
    session.interrupt();
    await ticket.done;
    const asked = events.find((e) => e.type === 'permission_requested');
    const requestId = asked?.type === 'permission_requested' ? asked.payload.requestId : '';
    const denied = events.findIndex((e) => e.type === 'permission_denied');
    expect(events[denied]?.payload).toEqual({
      toolCallId: asked?.payload.toolCallId,
      toolName: 'write_file',
      reason: 'interrupted',
      requestId,
    });
    expect(events[denied + 1]).toMatchObject({
      type: 'tool_call_error',
      payload: { toolCallId: asked?.payload.toolCallId, error: { code: 'interrupted' } },
    });
    expect(session.residencyFacts().pendingInteraction).toBe(false);
    expect(() => session.answerPermission(requestId ?? '', { decision: 'allow' })).toThrow(
      expect.objectContaining({ code: 'unknown_permission_request' }),
    );
  });

  it('stopped by a broker outage past its bound while a permission waits: it ends turn_error broker_unavailable, with the request settled (issue 9)', async () => {
    const { session, events } = setup();
    const admitted = await session.submit('[scenario:two_tools] read and write');
    if (!admitted.ok || admitted.delivery !== 'startNow') throw new Error('not started');
    await waitFor(events, 'permission_requested');
    session.brokerUnavailable(16_000);
    await expect(admitted.done).rejects.toThrow(/past the outage bound/);
    const types = events.map((e) => e.type);
    const denied = types.indexOf('permission_denied');
    expect(types.slice(denied)).toEqual([
      'permission_denied',
      'tool_call_error',
      'tool_batch_complete',
      'turn_error',
    ]);
    expect(events[denied]?.payload).toMatchObject({ reason: 'interrupted' });
    expect(events.at(-1)?.payload).toMatchObject({
      turnPhase: 'broker',
      error: { type: 'broker_unavailable', code: 'broker_unavailable', retryable: true },
    });
    expect(types).not.toContain('turn_complete');
    // The session goes on: the next input runs its own turn.
    const next = await session.submit('[scenario:streamed_text] hello again');
    if (!next.ok || next.delivery !== 'startNow') throw new Error('not started');
    expect((await next.done).status).toBe('complete');
  });

  it('interrupted while the model streams: the step is saved with what it streamed, as interrupted and hidden from the model', async () => {
    const { session, events, writer } = setup();
    const ticket = await startTurn(session, '[scenario:held_stream] think');
    await waitFor(events, 'model_streaming');
    session.interrupt();
    expect((await ticket.done).status).toBe('cancelled');
    const saved = writer.calls.filter((c) => c.kind === 'save_assistant_message');
    expect(saved.map((c) => c.value)).toEqual([
      expect.objectContaining({
        error: expect.objectContaining({ code: 'interrupted' }),
        semantics: expect.objectContaining({ providerVisibility: 'hidden' }),
      }),
    ]);
    expect(session.history.map((m) => m.role)).toEqual(['user']);
  });

  it('whose loop throws mid-batch: its scheduled call fails and its batch completes before turn_error', async () => {
    const writer = new RecordingWriter();
    const save = writer.savePart.bind(writer);
    writer.savePart = async (part, ctx) => {
      if ((part as { type: string }).type === 'tool')
        throw new Error('commands stream unavailable');
      return save(part, ctx);
    };
    const { session, events } = createSessionHarness({
      toolSet: createWorkspaceTools({ root }),
      root,
      writer,
    });
    await expect((await startTurn(session, '[scenario:two_tools] go')).done).rejects.toThrow();
    const types = events.map((e) => e.type);
    const scheduled = types.indexOf('tool_call_scheduled');
    expect(types.slice(scheduled)).toEqual([
      'tool_call_scheduled',
      'tool_call_error',
      'tool_batch_complete',
      'turn_error',
    ]);
    expect(events.at(-2)?.payload).toMatchObject({ successCount: 0, errorCount: 1 });
  });
});
