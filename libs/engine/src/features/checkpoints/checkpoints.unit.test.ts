import type { SessionEvent } from '@agentwire/contracts';
import { createScriptedProvider, type ModelRequest } from '@agentwire/model';
import { waitUntil } from '@agentwire/testing';
import { describe, expect, it } from 'vitest';
import type { CheckpointStore, WorkspaceRewind } from '../../kernel/ports.ts';
import { createSessionHarness } from '../../testing/session-harness.ts';

/** A store that records what it is asked and answers `rewindAnswer`. */
function recordingStore() {
  const calls: string[] = [];
  /** The exit checkpoints rewinds were asked to keep (docs/decisions/0239). */
  const kept: string[] = [];
  let rewindAnswer: WorkspaceRewind = {
    ok: true,
    restored: ['notes.txt'],
    removed: [],
    unrestorable: [],
  };
  const store: CheckpointStore = {
    async capture(_sid, id, scope) {
      calls.push(`capture ${id} ${scope === 'workspace' ? 'workspace' : scope.join(',')}`);
      return {
        snapshotRef: `ref:${id}`,
        fileCount: scope === 'workspace' ? 7 : scope.length,
        unrestorable: [],
      };
    },
    async settle(_sid, id, written) {
      // What the tool reported writing reaches the store (0244); '-' when nothing.
      calls.push(`settle ${id} ${written?.map((w) => w.path).join(',') ?? '-'}`);
    },
    async flush() {},
    async rewind(_sid, ids, options) {
      calls.push(`rewind ${ids.join(',')}`);
      if (!rewindAnswer.ok || options?.keepAs === undefined) return rewindAnswer;
      kept.push(options.keepAs);
      return {
        ...rewindAnswer,
        kept: { snapshotRef: `ref:${options.keepAs}`, fileCount: 1, unrestorable: [] },
      };
    },
  };
  const answer = (a: WorkspaceRewind) => {
    rewindAnswer = a;
  };
  return { store, calls, kept, answer };
}

async function turn(h: ReturnType<typeof createSessionHarness>, text: string) {
  const admitted = await h.session.submit(text);
  if (!admitted.ok || !('done' in admitted)) throw new Error('not started');
  return admitted.done;
}

function setup(recovered: SessionEvent[] = []) {
  const r = recordingStore();
  const h = createSessionHarness({
    checkpoints: r.store,
    start: { persisted: false, title: null, turnCount: 0, history: [], featureEvents: recovered },
  });
  return { ...h, ...r };
}

describe('checkpoints (R6, docs/decisions/0225)', () => {
  it('checkpoints before a write (its path) and a command (the workspace), never before a read', async () => {
    const h = setup();
    await h.session.runCommand('mode', 'yolo');
    await turn(h, '[scenario:two_tools] go');
    await turn(h, '[scenario:run_command] go');
    const created = h.events.flatMap((e) => (e.type === 'checkpoint_created' ? [e.payload] : []));
    expect(created.map((p) => [p.fileCount, p.snapshotRef.startsWith('ref:cp_')])).toEqual([
      [1, true],
      [7, true],
    ]);
    expect(
      h.calls.map((c) => c.split(' ').slice(0, 1).concat(c.split(' ').slice(2)).join(' ')),
    ).toEqual(['capture notes.txt', 'settle notes.txt', 'capture workspace', 'settle -']);
    const list = await h.session.submit('/rewind');
    expect(list).toMatchObject({ result: { checkpoints: [{ fileCount: 1 }, { fileCount: 7 }] } });
  });

  it('rewinds to a checkpoint: files from it on, the conversation to before its turn (0239)', async () => {
    const h = setup();
    await h.session.runCommand('mode', 'yolo');
    await turn(h, '[scenario:two_tools] one');
    await turn(h, '[scenario:two_tools] two');
    const ids = h.events.flatMap((e) =>
      e.type === 'checkpoint_created' ? [e.payload.checkpointId] : [],
    );
    const [first = '', second = ''] = ids;
    const done = await h.session.submit(`/rewind ${second}`);
    expect(done).toMatchObject({
      result: { scope: 'both', strategy: 'active_chain', restored: ['notes.txt'] },
    });
    expect(h.calls.at(-1)).toBe(`rewind ${second}`);
    // The conversation ends where turn 1 ended, then the notice.
    const texts = h.session.history.map((m) => m.content);
    expect(texts[0]).toBe('[scenario:two_tools] one');
    expect(texts.join('\n')).not.toContain('[scenario:two_tools] two');
    expect(texts.at(-1)).toContain('rewound this conversation');
    const triggered = h.events.findLast((e) => e.type === 'rewind_triggered');
    expect(triggered?.payload).toMatchObject({
      scope: 'both',
      strategy: 'active_chain',
      targetCheckpointId: second,
    });
    // Turn 1's question stays: titles may still be generated from it (R9.9).
    expect(h.writer.calls.some((c) => c.kind === 'mark_first_input_rewound')).toBe(false);
    // What turn 2 left is kept as the exit checkpoint of its branch's leaf.
    expect(h.kept).toHaveLength(1);
    expect(h.events.findLast((e) => e.type === 'checkpoint_created')?.payload).toMatchObject({
      checkpointId: h.kept[0],
    });
    // Turn 2's checkpoint is on another branch now; turn 1's is still in force.
    await expect(h.session.submit(`/rewind ${second}`)).rejects.toMatchObject({
      code: 'checkpoint_not_on_branch',
    });
    expect(await h.session.submit('/rewind')).toMatchObject({
      result: { checkpoints: [{ checkpointId: first }] },
    });
  });

  it('lists the branches with /tree and goes back to the abandoned one with its files', async () => {
    const h = setup();
    await h.session.runCommand('mode', 'yolo');
    await turn(h, '[scenario:two_tools] one');
    await turn(h, '[scenario:two_tools] two');
    const abandonedLeaf = (await h.session.submit('/tree')) as unknown as {
      result: { leafId: string };
    };
    const [, second = ''] = h.events.flatMap((e) =>
      e.type === 'checkpoint_created' ? [e.payload.checkpointId] : [],
    );
    await h.session.submit(`/rewind ${second}`);
    await turn(h, 'three');
    const listed = (await h.session.submit('/tree')) as unknown as {
      result: {
        branches: { leafId: string; active: boolean; firstMessage?: { preview: string } }[];
      };
    };
    const { branches } = listed.result;
    expect(branches).toHaveLength(2);
    const old = branches.find((b) => !b.active);
    expect(old).toMatchObject({
      leafId: abandonedLeaf.result.leafId,
      firstMessage: { preview: '[scenario:two_tools] two' },
    });
    expect(branches.find((b) => b.active)?.firstMessage?.preview).toBe('[scenario:two_tools] one');
    const back = await h.session.submit(`/tree ${old?.leafId}`);
    expect(back).toMatchObject({
      result: { scope: 'both', strategy: 'active_chain', targetMessageId: old?.leafId },
    });
    // The exit checkpoint, then what turn 3 took (none: it wrote nothing).
    expect(h.calls.at(-1)).toBe(`rewind ${h.kept[0]}`);
    const texts = h.session.history.map((m) => m.content).join('\n');
    expect(texts).toContain('[scenario:two_tools] two');
    expect(texts).not.toContain('three');
    expect(h.session.history.at(-1)?.content).toContain('switched this conversation');
    await expect(h.session.submit('/tree msg_nowhere')).rejects.toMatchObject({
      code: 'unknown_message',
    });
  });

  it('says fork_required and changes nothing when the user changed a file since', async () => {
    const h = setup();
    await h.session.runCommand('mode', 'yolo');
    await turn(h, '[scenario:two_tools] one');
    const [id = ''] = h.events.flatMap((e) =>
      e.type === 'checkpoint_created' ? [e.payload.checkpointId] : [],
    );
    h.answer({ ok: false, reason: 'changed', files: ['notes.txt'], message: 'changed: notes.txt' });
    expect(await h.session.submit(`/rewind ${id}`)).toMatchObject({
      result: { strategy: 'fork_required', files: ['notes.txt'] },
    });
    expect(h.events.at(-1)?.payload).toMatchObject({
      strategy: 'fork_required',
      reason: 'changed: notes.txt',
    });
    // Still there: the user may resolve it and try again.
    expect(await h.session.submit('/rewind')).toMatchObject({
      result: { checkpoints: [{ checkpointId: id }] },
    });
  });

  it('queues a rewind sent while a turn runs and runs it at the boundary (0238); refuses an unknown checkpoint', async () => {
    const h = setup();
    await h.session.runCommand('mode', 'yolo');
    await turn(h, '[scenario:two_tools] one');
    const [id = ''] = h.events.flatMap((e) =>
      e.type === 'checkpoint_created' ? [e.payload.checkpointId] : [],
    );
    await expect(h.session.submit('/rewind cp_nope')).rejects.toMatchObject({
      code: 'unknown_checkpoint',
    });
    await h.session.runCommand('mode', 'build');
    const running = await h.session.submit('[scenario:run_command] hold');
    await waitUntil(() => h.session.permissions.pendingRequestIds().length === 1, {
      timeoutMs: 2_000,
      intervalMs: 2,
    });
    const queued = await h.session.submit(`/rewind ${id}`, { inputId: 'in-rewind' });
    expect(queued).toMatchObject({ ok: true, inputId: 'in-rewind', delivery: 'queue' });
    expect(h.events.some((e) => e.type === 'rewind_triggered')).toBe(false);
    const [requestId = ''] = h.session.permissions.pendingRequestIds();
    h.session.answerPermission(requestId, { decision: 'deny' });
    if (running.ok && 'done' in running) await running.done;
    await waitUntil(() => h.session.actionState('in-rewind') === 'completed', {
      timeoutMs: 2_000,
      intervalMs: 2,
    });
    // Its own turn, after the held one: the command line committed (hidden from the model),
    // then the rewind.
    const types = h.events.map((e) => e.type);
    const ofRewind = h.events
      .filter((e) => e.turnId === h.events.at(-1)?.turnId)
      .map((e) => e.type);
    expect(ofRewind).toEqual(['turn_started', 'turn_complete']);
    expect(types.indexOf('rewind_triggered')).toBeGreaterThan(types.indexOf('turn_complete'));
    const line = h.writer.calls.filter((c) => c.kind === 'save_user_message').at(-2);
    expect(line?.value).toMatchObject({
      message: { semantics: { kind: 'slash_command', providerVisibility: 'hidden' } },
    });
    expect(JSON.stringify(h.session.history)).not.toContain('/rewind');
    expect(h.session.history.at(-1)?.content).toContain('rewound this conversation');
  });

  it('recovers its checkpoints from the stream, minus those a rewind undid', async () => {
    const ev = (type: string, payload: unknown, sequenceNumber: number) =>
      ({ type, payload, sequenceNumber }) as unknown as SessionEvent;
    const h = setup([
      ev(
        'checkpoint_created',
        {
          checkpointId: 'cp_a',
          messageId: 'm1',
          snapshotRef: 'r',
          scope: 'workspace',
          fileCount: 1,
        },
        3,
      ),
      ev(
        'checkpoint_created',
        {
          checkpointId: 'cp_b',
          messageId: 'm2',
          snapshotRef: 'r',
          scope: 'workspace',
          fileCount: 2,
        },
        5,
      ),
      ev(
        'rewind_triggered',
        { rewindId: 'x', scope: 'workspace', strategy: 'file_only', targetCheckpointId: 'cp_b' },
        6,
      ),
    ]);
    // The messages the checkpoints belong to, as the store holds them.
    for (const [id, treeParentId] of [
      ['m1', null],
      ['m2', 'm1'],
    ] as const) {
      h.writer.calls.push({
        kind: 'save_assistant_message',
        sequence: 1,
        value: { id, role: 'assistant', treeParentId },
      });
    }
    expect(await h.session.submit('/rewind')).toMatchObject({
      result: { checkpoints: [{ checkpointId: 'cp_a', messageId: 'm1', fileCount: 1 }] },
    });
  });

  it('tells the next turn what a rewind did: a model-only notice before its prompt (R8), once', async () => {
    const { model, seen } = (() => {
      const seen: { role: string; content: string }[][] = [];
      const scripted = createScriptedProvider();
      return {
        seen,
        model: {
          ...scripted,
          stream: (request: ModelRequest, signal?: AbortSignal) => {
            seen.push(request.messages.map((m) => ({ role: m.role, content: m.content })));
            return scripted.stream(request, signal);
          },
        },
      };
    })();
    const r = recordingStore();
    const h = createSessionHarness({ checkpoints: r.store, model });
    await h.session.runCommand('mode', 'yolo');
    await turn(h, '[scenario:two_tools] one');
    const [first = ''] = h.events.flatMap((e) =>
      e.type === 'checkpoint_created' ? [e.payload.checkpointId] : [],
    );
    await h.session.submit(`/rewind ${first}`);
    const notice = h.writer.calls.filter((c) => c.kind === 'save_user_message').at(-1)?.value as {
      message: Record<string, unknown>;
    };
    // The first question is rewound away: no generated title applies any more (R9.9).
    expect(h.writer.calls.some((c) => c.kind === 'mark_first_input_rewound')).toBe(true);
    await turn(h, 'what now?');
    // Back to before the first prompt: the notice, then the new prompt, nothing else.
    const request = seen.at(-1) ?? [];
    expect(request.map((m) => m.role)).toEqual(['user', 'user']);
    expect(request.at(-1)?.content).toBe('what now?');
    expect(request.at(-2)?.content).toContain('rewound this conversation');
    expect(request.at(-2)?.content).toContain('Restored: notes.txt.');
    expect(notice.message).toMatchObject({
      synthetic: true,
      source: 'rewind',
      visibility: 'model-only',
      semantics: { kind: 'rewind_notice', uiVisibility: 'hidden', transcriptVisibility: 'hidden' },
      anchor: { origin: 'synthetic' },
    });
    // Told once: the turn after carries no second notice.
    await turn(h, 'and then?');
    const later = seen.at(-1) ?? [];
    expect(later.filter((m) => m.content.includes('rewound this conversation'))).toHaveLength(1);
    expect(later.at(-1)?.content).toBe('and then?');
  });

  it('a rewind the stream shows after the last turn start is told after a restart', async () => {
    const rewound = {
      type: 'rewind_triggered',
      sequenceNumber: 9,
      payload: {
        rewindId: 'rw',
        scope: 'workspace',
        strategy: 'file_only',
        targetCheckpointId: 'cp_x',
      },
    } as unknown as SessionEvent;
    const started = {
      type: 'turn_started',
      sequenceNumber: 5,
      payload: {},
    } as unknown as SessionEvent;
    const told = {
      type: 'turn_started',
      sequenceNumber: 12,
      payload: {},
    } as unknown as SessionEvent;
    const h1 = setup([started, rewound]);
    await turn(h1, 'after the restart');
    expect(
      h1.writer.calls.some(
        (c) => c.kind === 'save_user_message' && JSON.stringify(c.value).includes('cp_x'),
      ),
    ).toBe(true);
    const h2 = setup([rewound, told]);
    await turn(h2, 'told already');
    expect(
      h2.writer.calls.some(
        (c) => c.kind === 'save_user_message' && JSON.stringify(c.value).includes('cp_x'),
      ),
    ).toBe(false);
  });

  it('queues a second rewind sent while one runs, and runs it after (0238)', async () => {
    const h = setup();
    await h.session.runCommand('mode', 'yolo');
    await turn(h, '[scenario:two_tools] one');
    await turn(h, '[scenario:two_tools] two');
    const [first = '', second = ''] = h.events.flatMap((e) =>
      e.type === 'checkpoint_created' ? [e.payload.checkpointId] : [],
    );
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const rewind = h.store.rewind.bind(h.store);
    let entered = false;
    h.store.rewind = async (...args) => {
      entered = true;
      await held;
      return rewind(...args);
    };
    const one = h.session.submit(`/rewind ${second}`);
    await waitUntil(() => entered, {
      timeoutMs: 2_000,
      intervalMs: 2,
    });
    const two = await h.session.submit(`/rewind ${first}`, { inputId: 'in-second' });
    expect(two).toMatchObject({ ok: true, inputId: 'in-second', delivery: 'queue' });
    release();
    expect(await one).toMatchObject({ result: { strategy: 'active_chain' } });
    await waitUntil(() => h.session.actionState('in-second') === 'completed', {
      timeoutMs: 2_000,
      intervalMs: 2,
    });
    expect(h.events.filter((e) => e.type === 'rewind_triggered')).toHaveLength(2);
  });
});
