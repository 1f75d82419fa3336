import { describe, expect, it } from 'vitest';
import { memoryWorkspace } from '../testing/memory-workspace.ts';
import { createSessionHarness } from '../testing/session-harness.ts';
import { startTurn } from '../testing/start-turn.ts';
import { historyFromTranscript, type TranscriptPart } from './history-from-transcript.ts';
import { RuntimeError } from './runtime-error.ts';

const files = new Map([
  ['README.md', '# demo\nline two\n'],
  ['src/a.ts', 'export const a = 1;\n'],
  ['.agentwire/prompts/review.md', 'Review $ARGUMENTS carefully.'],
]);

function setup() {
  return createSessionHarness({ workspace: memoryWorkspace(files) });
}

async function refusal(p: Promise<unknown>): Promise<RuntimeError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof RuntimeError)) throw new Error(`expected a RuntimeError, got ${err}`);
  return err;
}

describe('submissions are normalised before admission (R12.1)', () => {
  it('runs /help and /status at once: an answer, no event, nothing sent to the model', async () => {
    const { session, events } = setup();
    const help = await session.submit('/help');
    expect(help).toMatchObject({ ok: true, delivery: 'command', command: 'help' });
    const names = help.ok && 'result' in help ? help.result.commands : undefined;
    expect((names as { name: string }[]).map((c) => c.name)).toEqual([
      'compact',
      'goal',
      'help',
      'mode',
      'model',
      'queue-mode',
      'rename',
      'review',
      'rewind',
      'status',
      'tree',
    ]);
    const status = await session.submit('  /status  ');
    expect(status).toMatchObject({
      ok: true,
      command: 'status',
      result: { sessionId: 's1', turnCount: 0, activeTurnId: null, persisted: false },
    });
    // Only its arrival (0233): nothing admitted, nothing else said.
    expect(events.map((e) => e.type).filter((t) => t !== 'turn_input_received')).toEqual([]);
  });

  it('/rename renames as the rename operation does (custom, R9.3)', async () => {
    const { session, events } = setup();
    const renamed = await session.submit('/rename   Login bug hunt ');
    expect(renamed).toMatchObject({ command: 'rename', result: { title: 'Login bug hunt' } });
    expect(events.find((e) => e.type === 'session_title_updated')?.payload).toMatchObject({
      title: 'Login bug hunt',
      source: 'custom',
    });
  });

  it('refuses an unknown command, listing the known ones, and never reaches the model', async () => {
    const { session, events } = setup();
    const err = await refusal(session.submit('/deploy now'));
    expect(err.code).toBe('unknown_command');
    expect(err.detail).toEqual({
      command: 'deploy',
      known: [
        'compact',
        'goal',
        'help',
        'mode',
        'model',
        'queue-mode',
        'rename',
        'review',
        'rewind',
        'status',
        'tree',
      ],
    });
    expect(err.message).toContain(
      '/goal, /help, /mode, /model, /queue-mode, /rename, /review, /rewind, /status, /tree',
    );
    expect((await refusal(session.submit('/rename'))).code).toBe('invalid_command');
    // Only its arrival (0233): nothing admitted, nothing else said.
    expect(events.map((e) => e.type).filter((t) => t !== 'turn_input_received')).toEqual([]);
    // A path is not a command.
    const ticket = await startTurn(session, '/usr/bin/ls fails');
    await ticket.done;
    expect(events.some((e) => e.type === 'model_request')).toBe(true);
  });

  it('expands a workspace template into the prompt the model gets', async () => {
    const { session, writer } = setup();
    await (await startTurn(session, '/review the parser')).done;
    expect(session.history[0]).toEqual({ role: 'user', content: 'Review the parser carefully.' });
    const saved = writer.calls.find((c) => c.kind === 'save_user_message')?.value as {
      parts: { type: string; text?: string }[];
    };
    expect(saved.parts).toEqual([
      expect.objectContaining({ type: 'text', text: 'Review the parser carefully.' }),
    ]);
  });

  it('carries @file references as file parts; cold recovery gives the model the same content', async () => {
    const { session, writer, events } = setup();
    await (await startTurn(session, 'compare @src/a.ts and @README.md')).done;
    const content = session.history[0]?.content ?? '';
    expect(content).toBe(
      'compare @src/a.ts and @README.md\n\n<file path="README.md">\n# demo\nline two\n\n</file>' +
        '\n\n<file path="src/a.ts">\nexport const a = 1;\n\n</file>',
    );
    const queued = events.find((e) => e.type === 'turn_steer_queued');
    expect(queued?.payload).toMatchObject({
      attachments: [
        { fileName: 'README.md', mime: 'text/plain', bytes: 16 },
        { fileName: 'src/a.ts', mime: 'text/plain', bytes: 20 },
      ],
    });
    const saved = writer.calls.find((c) => c.kind === 'save_user_message')?.value as {
      parts: { type: string; text?: string; url?: string; filename?: string }[];
    };
    expect(saved.parts.map((p) => p.type)).toEqual(['text', 'file', 'file']);
    // Hydration reads the parts back in any order (part ids sort as they like).
    const parts: TranscriptPart[] = [...saved.parts].reverse().map((p) => ({
      type: p.type as 'text' | 'file',
      text: p.text ?? null,
      toolCallId: null,
      toolName: null,
      status: null,
      input: null,
      output: null,
      error: null,
      url: p.url ?? null,
      filename: p.filename ?? null,
    }));
    const [user] = historyFromTranscript([
      { role: 'user', providerVisibility: 'visible', synthetic: false, parts },
    ]);
    expect(user).toEqual({ role: 'user', content });
  });

  it('refuses a file reference outside the workspace with nothing admitted', async () => {
    const { session, events, writer } = setup();
    const err = await refusal(session.submit('read @../../etc/passwd'));
    expect(err).toMatchObject({
      code: 'invalid_file_reference',
      detail: { reference: '@../../etc/passwd', reason: 'outside_workspace' },
    });
    // Only its arrival (0233): nothing admitted, nothing else said.
    expect(events.map((e) => e.type).filter((t) => t !== 'turn_input_received')).toEqual([]);
    expect(writer.calls).toEqual([]);
  });
});
