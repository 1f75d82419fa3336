import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { describe, expect, it } from 'vitest';
import { failureError } from './cli-context.ts';
import { CliError, EXIT } from './cli-error.ts';
import { formatEvent, SUMMARY_MAX_CHARS } from './format-event.ts';
import { parseCommand } from './parse-args.ts';

describe('parseCommand', () => {
  it('parses every command', () => {
    expect(parseCommand(['new'])).toEqual({ name: 'new' });
    expect(parseCommand(['prompt', 's1', 'hello', 'there'])).toEqual({
      name: 'prompt',
      sessionId: 's1',
      text: 'hello there',
      wait: false,
    });
    expect(parseCommand(['prompt', 's1', 'hi', '--wait'])).toMatchObject({ wait: true });
    expect(parseCommand(['follow', 's1', '--after', '12', '--until', 'turn_complete'])).toEqual({
      name: 'follow',
      sessionId: 's1',
      after: 12,
      until: 'turn_complete',
    });
    expect(parseCommand(['follow', 's1'])).toEqual({ name: 'follow', sessionId: 's1', after: 0 });
    expect(parseCommand(['projection', 's1'])).toEqual({ name: 'projection', sessionId: 's1' });
    expect(parseCommand(['answer', 's1', 'r1', 'deny', '--reason', 'no'])).toEqual({
      name: 'answer',
      sessionId: 's1',
      requestId: 'r1',
      decision: 'deny',
      reason: 'no',
    });
    expect(parseCommand(['demo'])).toEqual({ name: 'demo' });
    expect(parseCommand(['--help'])).toEqual({ name: 'help' });
  });

  it.each([
    [[], /missing command/],
    [['launch'], /unknown command "launch"/],
    [['prompt', 's1'], /missing session id or text/],
    [['follow', 's1', '--after=-3'], /--after must be a non-negative integer/],
    [['follow', 's1', '--after', 'x'], /--after must be a non-negative integer/],
    [['answer', 's1', 'r1', 'maybe'], /allow or deny, got "maybe"/],
    [['new', 'extra'], /unexpected argument "extra"/],
    [['follow', 's1', '--colour'], /Unknown option '--colour'/],
  ])('rejects %j with a usage error', (argv, message) => {
    const run = () => parseCommand(argv);
    expect(run).toThrow(CliError);
    expect(run).toThrow(message);
    try {
      run();
    } catch (error) {
      expect((error as CliError).exitCode).toBe(EXIT.usage);
    }
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
