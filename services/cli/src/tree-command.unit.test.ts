import type { QueryClient, RuntimeClient, RuntimeResult } from '@agentwire/bus';
import type { SessionCommandReply } from '@agentwire/contracts';
import { describe, expect, it } from 'vitest';
import type { CliContext } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import { buildProgram } from './program.ts';
import { createStyle } from './style.ts';

const ran = (command: string, result: Record<string, unknown>): SessionCommandReply => ({
  ok: true,
  sessionId: 's1',
  inputId: 'in_1',
  command,
  result,
});

const LISTING = {
  leafId: 'msg_9',
  branches: [
    {
      leafId: 'msg_5',
      active: false,
      size: 6,
      forkedAt: 'msg_2',
      firstMessage: { id: 'msg_3', preview: '[scenario:undo_change]\ngo' },
    },
    {
      leafId: 'msg_9',
      active: true,
      size: 4,
      forkedAt: null,
      firstMessage: { id: 'msg_1', preview: '[scenario:undo_create] go' },
    },
  ],
};

/** Runs `agentwire <argv>` on a client answering `reply` to `rewind` and `tree`, recorded. */
async function agentwire(argv: string[], reply: RuntimeResult<SessionCommandReply>) {
  const calls: unknown[][] = [];
  const answer =
    (op: string) =>
    async (...args: unknown[]) => {
      calls.push([op, ...args]);
      return reply;
    };
  const client = { rewind: answer('rewind'), tree: answer('tree') } as unknown as RuntimeClient;
  const out: string[] = [];
  const program = buildProgram({
    writeOut: () => {},
    connect: async ({ json }): Promise<CliContext> => ({
      client,
      query: {} as QueryClient,
      out: (l) => out.push(l),
      err: () => {},
      signal: new AbortController().signal,
      json,
      style: createStyle(false),
      progress: (_label, work) => work,
    }),
  });
  const error = await program.parseAsync(argv, { from: 'user' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { calls, out, error };
}

describe('agentwire checkpoints, rewind and tree (docs/decisions/0242)', () => {
  it('checkpoints lists the checkpoints in force, aligned, with their message and files', async () => {
    const run = await agentwire(
      ['checkpoints', 's1'],
      ran('rewind', {
        checkpoints: [
          { checkpointId: 'cp_call_1', messageId: 'msg_2', fileCount: 1 },
          { checkpointId: 'cp_call_22', messageId: 'msg_4', fileCount: 3 },
        ],
      }),
    );
    expect(run.error).toBeUndefined();
    expect(run.calls).toEqual([['rewind', 's1']]);
    expect(run.out).toEqual(['cp_call_1   on msg_2  1 file', 'cp_call_22  on msg_4  3 files']);
    const none = await agentwire(['checkpoints', 's1'], ran('rewind', { checkpoints: [] }));
    expect(none.out).toEqual(['no checkpoints on the active branch']);
  });

  it('tree lists the branches, the active one marked, with sizes, fork points and previews', async () => {
    const run = await agentwire(['tree', 's1'], ran('tree', LISTING));
    expect(run.calls).toEqual([['tree', 's1', undefined]]);
    expect(run.out).toEqual([
      '  msg_5    6 messages  from msg_2  "[scenario:undo_change] go"',
      '* msg_9    4 messages  active  "[scenario:undo_create] go"',
    ]);
  });

  it('rewind and tree <messageId> say where the conversation ends and what the files did', async () => {
    const rewound = await agentwire(
      ['rewind', 's1', 'cp_call_22'],
      ran('rewind', {
        rewindId: 'rw_1',
        scope: 'both',
        strategy: 'active_chain',
        leafId: 'msg_10',
        targetMessageId: 'msg_2',
        targetCheckpointId: 'cp_call_22',
        restored: ['src/a.txt', 'b.txt'],
        removed: ['out/c.txt'],
        unrestorable: [],
      }),
    );
    expect(rewound.calls).toEqual([['rewind', 's1', 'cp_call_22']]);
    expect(rewound.out).toEqual([
      'rewound: the conversation ends at msg_2 (files and conversation), leaf msg_10',
      '  restored: src/a.txt, b.txt',
      '  deleted: out/c.txt',
    ]);
    const moved = await agentwire(
      ['tree', 's1', 'msg_5'],
      ran('tree', {
        rewindId: 'rw_2',
        scope: 'conversation',
        strategy: 'active_chain',
        leafId: 'msg_11',
        targetMessageId: 'msg_5',
        reason: 'files stay as they are',
      }),
    );
    expect(moved.calls).toEqual([['tree', 's1', 'msg_5']]);
    expect(moved.out).toEqual([
      'moved: the conversation ends at msg_5 (conversation only, files as they are), leaf msg_11',
      '  files stay as they are',
    ]);
    const refused = await agentwire(
      ['rewind', 's1', 'cp_call_1'],
      ran('rewind', {
        rewindId: 'rw_3',
        scope: 'both',
        strategy: 'fork_required',
        reason: 'd.txt changed since the agent wrote it',
        files: ['d.txt'],
      }),
    );
    expect(refused.out).toEqual([
      'nothing rewound (fork_required): d.txt changed since the agent wrote it',
      '  files: d.txt',
    ]);
  });

  it('prints the ticket of a command queued behind the running turn', async () => {
    const run = await agentwire(['tree', 's1'], {
      ok: true,
      sessionId: 's1',
      inputId: 'in_7',
      delivery: 'queue',
      targetTurnId: 'turn_3',
      queueLength: 1,
    });
    expect(run.out).toEqual([
      'queued in_7: the session is busy; it runs after turn turn_3 (agentwire queue s1)',
    ]);
  });

  it('prints the reply as one JSON document with --json', async () => {
    const reply = ran('tree', LISTING);
    const run = await agentwire(['tree', 's1', '--json'], reply);
    expect(run.out.map((l) => JSON.parse(l))).toEqual([reply]);
  });

  it.each([
    [['rewind', 's1', 'cp_nothing'], 'unknown_checkpoint', 'rewind'],
    [['tree', 's1', 'msg_x'], 'unknown_message', 'tree'],
    [['rewind', 's1', 'msg_2'], 'nothing_to_rewind', 'rewind'],
    [['checkpoints', 's1'], 'turn_in_progress', 'checkpoints'],
  ])('fails %j with the typed error %s, exit 1', async (argv, code, what) => {
    const run = await agentwire(argv, { ok: false, error: { code, message: 'refused' } });
    expect(run.error).toBeInstanceOf(CliError);
    expect(run.error).toMatchObject({
      code,
      exitCode: EXIT.failure,
      message: `${what}: refused (${code})`,
    });
    expect(run.out).toEqual([]);
  });
});
