import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { describe, expect, it } from 'vitest';
import { failureError } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import { formatEvent, SUMMARY_MAX_CHARS } from './format-event.ts';
import { buildProgram } from './program.ts';
import { coloursEnabled, createStyle } from './style.ts';

/** A program whose commands must not connect: parsing alone is under test. */
function program() {
  const written: string[] = [];
  const connects: unknown[] = [];
  const built = buildProgram({
    writeOut: (text) => written.push(text),
    connect: async (options) => {
      connects.push(options);
      throw new CliError('connect', 'connected', EXIT.failure);
    },
  });
  return { built, written, connects };
}

const COMMANDS = [
  'chat',
  'new',
  'prompt',
  'follow',
  'tail',
  'sessions',
  'history',
  'show',
  'projection',
  'answer',
  'interrupt',
  'rename',
  'mode',
  'queue',
  'checkpoints',
  'rewind',
  'tree',
  'fork',
  'export',
  'import',
  'demo',
];

describe('the commander program', () => {
  it('has every command, and --help on each prints its usage, --json and an example without connecting', async () => {
    expect(
      program()
        .built.commands.map((c) => c.name())
        .sort(),
    ).toEqual([...COMMANDS].sort());
    for (const name of COMMANDS) {
      const { built, written, connects } = program();
      await expect(built.parseAsync([name, '--help'], { from: 'user' })).rejects.toMatchObject({
        code: 'commander.helpDisplayed',
      });
      const help = written.join('');
      expect(help, name).toContain(`Usage: agentwire ${name}`);
      // chat is interactive: its help points to tail --json instead.
      expect(help, name).toContain(name === 'chat' ? 'tail --json' : '--json');
      expect(help, name).toMatch(/Example:\n {2}\$ agentwire /);
      expect(connects).toEqual([]);
    }
  });

  it.each([
    [['launch'], /unknown command 'launch'/],
    [['prompt', 's1'], /missing required argument 'text'/],
    [['follow', 's1', '--after=-3'], /--after <n>.*must be a whole number of at least 0/],
    [['follow', 's1', '--after', 'x'], /--after <n>.*must be a whole number of at least 0/],
    [['tail', 's1', '--from', '0'], /--from <n>.*must be a whole number of at least 1/],
    [['answer', 's1', 'r1', 'maybe'], /value 'maybe' is invalid .*allow, deny/],
    [['new', 'extra'], /too many arguments/],
    [['follow', 's1', '--colour'], /unknown option '--colour'/],
    [['history', 's1', '--from', 'middle'], /argument 'middle' is invalid.*start, end/],
    [['sessions', '--limit', '0'], /--limit <n>.*at least 1/],
    [['queue', 's1', 'shuffle'], /value 'shuffle' is invalid .*list, rm, move/],
    [['rewind', 's1'], /missing required argument 'target'/],
    [['rewind', 's1', 'msg_*'], /'msg_\*' is invalid .*no whitespace, "\*" or ">"/],
    [['rewind', 's1', 'cp_1 cp_2'], /is invalid .*must be one id/],
    [['tree', 's1', 'aw.>'], /is invalid .*must be one id/],
    [['tree', 's1', 'm1', 'm2'], /too many arguments/],
    [['checkpoints'], /missing required argument 'sid'/],
    [['fork', 's1'], /missing required argument 'messageId'/],
    [['fork', 's1', 'msg_*'], /'msg_\*' is invalid .*no whitespace, "\*" or ">"/],
    [['fork', 's1', 'msg_1 msg_2'], /is invalid .*must be one id/],
    [['fork', 's1', 'aw.>'], /is invalid .*must be one id/],
    [['export'], /missing required argument 'sid'/],
    [['export', 's1', 'extra'], /too many arguments/],
    [['export', 's1', '-o'], /option '-o, --output <file>' argument missing/],
    [['import'], /missing required argument 'file'/],
  ])('refuses %j before connecting', async (argv, message) => {
    const { built, connects } = program();
    await expect(built.parseAsync(argv, { from: 'user' })).rejects.toThrow(message);
    expect(connects).toEqual([]);
  });

  it('connects only to run a command, passing --json', async () => {
    const { built, connects } = program();
    await expect(built.parseAsync(['sessions', '--json'], { from: 'user' })).rejects.toThrow(
      'connected',
    );
    expect(connects).toEqual([{ json: true }]);
  });
});

describe('formatEvent', () => {
  it('prints the sequence number, the type and a summary', () => {
    const event = sampleSessionEvent('permission_requested', { sequenceNumber: 12 });
    const line = formatEvent(event);
    expect(line.startsWith('  12 permission_requested  ')).toBe(true);
    expect(line).toContain(event.payload.toolName);
    expect(line).toContain(event.payload.riskLevel);
  });

  it.each([
    ['permission_resolved', { decision: 'allow', reason: 'ok' }, 'allow request perm_1: ok'],
    [
      'permission_denied',
      { toolName: 'write_file', reason: 'interrupted' },
      'write_file request perm_1: interrupted',
    ],
  ] as const)('names the request a %s settles (issue 20)', (type, payload, summary) => {
    const base = sampleSessionEvent(type, { sequenceNumber: 7 });
    const event = { ...base, payload: { ...base.payload, ...payload, requestId: 'perm_1' } };
    expect(formatEvent(event as typeof base)).toBe(`   7 ${type}  ${summary}`);
  });

  it('summarises a compaction in one line: its trigger, the tokens before and after', () => {
    const base = sampleSessionEvent('compact_boundary', { sequenceNumber: 9 });
    const event = {
      ...base,
      payload: {
        ...base.payload,
        trigger: 'auto' as const,
        preCompactTokenCount: 900,
        postCompactTokenCount: 120,
        summarizedMessageCount: 8,
        keptMessageCount: 1,
      },
    };
    expect(formatEvent(event)).toBe(
      '   9 compact_boundary  auto: 900 -> 120 tokens, 8 messages summarised, 1 kept',
    );
  });

  it("summarises a goal's changes and verdicts in one line each", () => {
    const changed = sampleSessionEvent('target_changed', { sequenceNumber: 4 });
    const target = {
      targetId: 'g1',
      objective: 'make CI green',
      summaryTitle: 'Green CI',
      status: 'active' as const,
      tokenBudget: 5000,
      tokensUsed: 1200,
      timeUsedSeconds: 3,
    };
    expect(
      formatEvent({
        ...changed,
        payload: { action: 'usage_accounted', source: 'runtime', target },
      }),
    ).toBe('   4 target_changed  usage_accounted: active "Green CI", 1200/5000 tokens');
    expect(
      formatEvent({ ...changed, payload: { action: 'cleared', source: 'command', target: null } }),
    ).toBe('   4 target_changed  cleared: no goal');
    const checked = sampleSessionEvent('target_completion_verification', { sequenceNumber: 5 });
    const payload = {
      targetId: 'g1',
      verificationId: 'v1',
      status: 'completed' as const,
      verification: { passed: false, reason: 'one test fails' },
    };
    expect(formatEvent({ ...checked, payload })).toBe(
      '   5 target_completion_verification  completed: not met, one test fails',
    );
  });

  it('keeps one line and cuts long summaries', () => {
    const base = sampleSessionEvent('turn_started', { sequenceNumber: 3 });
    const event = { ...base, payload: { ...base.payload, input: `a\nb ${'x'.repeat(500)}` } };
    const line = formatEvent(event);
    expect(line).not.toContain('\n');
    expect(line.length).toBeLessThanOrEqual(`   3 turn_started  `.length + SUMMARY_MAX_CHARS);
    expect(line.endsWith('…')).toBe(true);
  });

  it('prints types without a summary as sequence and type only', () => {
    const event = sampleSessionEvent('session_ended', { sequenceNumber: 40 });
    expect(formatEvent(event)).toBe('  40 session_ended');
  });
});

describe('failureError', () => {
  it.each([
    ['unknown_session', EXIT.notFound],
    ['unknown_permission_request', EXIT.notFound],
    ['invalid_request', EXIT.usage],
    ['lease_conflict', EXIT.failure],
    ['timeout', EXIT.failure],
  ])('exits for %s with %i', (code, exit) => {
    const error = failureError('prompt', { ok: false, error: { code, message: 'm' } });
    expect(error.exitCode).toBe(exit);
    expect(error.message).toBe(`prompt: m (${code})`);
  });
});

describe('colours', () => {
  it('are off under a non-empty NO_COLOR, forced by FORCE_COLOR, else follow the terminal', () => {
    const tty = { isTTY: true };
    expect(coloursEnabled(tty, {})).toBe(true);
    expect(coloursEnabled({}, {})).toBe(false);
    expect(coloursEnabled(tty, { NO_COLOR: '1' })).toBe(false);
    expect(coloursEnabled(tty, { NO_COLOR: '' })).toBe(true);
    expect(coloursEnabled({}, { FORCE_COLOR: '1' })).toBe(true);
    expect(coloursEnabled(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(coloursEnabled(tty, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
    expect(createStyle(true).bold('x')).toBe('\u001b[1mx\u001b[22m');
    expect(createStyle(false).bold('x')).toBe('x');
  });
});
