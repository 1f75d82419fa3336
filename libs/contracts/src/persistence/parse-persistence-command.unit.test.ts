import { describe, expect, it } from 'vitest';
import { parsePersistenceCommandOrThrow } from '../testing/parse-persistence-command-or-throw.ts';
import { sampleCompletedToolPart, samplePersistenceCommands } from '../testing/sample-records.ts';
import { decideVersionedWrite, nextCommandVersion } from './command-version.ts';
import { decodePersistenceCommand, parsePersistenceCommand } from './parse-persistence-command.ts';
import { PERSISTENCE_COMMAND_SCHEMAS, type PersistenceCommandKind } from './persistence-command.ts';
import { PersistenceConfirmation } from './persistence-confirmation.ts';

const PERSISTENCE_COMMAND_KINDS = Object.keys(
  PERSISTENCE_COMMAND_SCHEMAS,
) as PersistenceCommandKind[];

function failureOf(input: unknown) {
  const result = parsePersistenceCommand(input);
  if (result.ok) throw new Error('expected a parse failure');
  return result.error;
}

describe('parsePersistenceCommand', () => {
  it('has a sample for every kind', () => {
    expect(Object.keys(samplePersistenceCommands).sort()).toEqual(
      [...PERSISTENCE_COMMAND_KINDS].sort(),
    );
  });

  it.each(PERSISTENCE_COMMAND_KINDS)('parses a valid %s command', (kind) => {
    const command = samplePersistenceCommands[kind];
    expect(parsePersistenceCommand(command)).toEqual({ ok: true, command });
  });

  it('given an unknown kind, rejects it by name', () => {
    const error = failureOf({ ...samplePersistenceCommands.save_part, kind: 'drop_table' });
    expect(error).toMatchObject({
      name: 'PersistenceCommandParseError',
      code: 'unknown_command',
      kind: 'drop_table',
      message: 'unknown command kind "drop_table"',
    });
  });

  it('given no kind, says so', () => {
    const { kind: _kind, ...rest } = samplePersistenceCommands.save_part;
    expect(failureOf(rest)).toMatchObject({
      code: 'unknown_command',
      message: 'missing command kind',
    });
  });

  it('given a non-object, rejects it', () => {
    expect(failureOf([1, 2]).code).toBe('unknown_command');
  });

  it('given a wrong field, names the kind, the path and the reason', () => {
    const base = samplePersistenceCommands.save_part;
    const part = {
      ...sampleCompletedToolPart,
      state: { ...sampleCompletedToolPart.state, status: 'done' },
    };
    const error = failureOf({ ...base, part });
    expect(error.code).toBe('invalid_command');
    expect(error.kind).toBe('save_part');
    expect(error.issues[0]?.path).toBe('part.state.status');
    expect(error.message).toMatch(/^invalid save_part command at part\.state\.status: /);
  });

  it('given a part of another session, rejects the command', () => {
    const base = samplePersistenceCommands.save_user_message;
    const parts = [{ ...base.parts[0], sessionId: 'session-2' }];
    const error = failureOf({ ...base, parts });
    expect(error.issues).toEqual([
      { path: 'parts[0].sessionId', message: 'part session session-2 does not match session-1' },
    ]);
  });

  it('given a user message part of a tool type, rejects it (R7.3: text and file only)', () => {
    const base = samplePersistenceCommands.save_user_message;
    const parts = [samplePersistenceCommands.save_part.part];
    expect(failureOf({ ...base, parts }).issues[0]?.path).toBe('parts[0].type');
  });

  it('given a synthetic notice not flagged synthetic, rejects it (R8)', () => {
    const base = samplePersistenceCommands.save_synthetic_notice;
    const error = failureOf({ ...base, message: { ...base.message, synthetic: false } });
    expect(error.issues[0]?.path).toBe('message.synthetic');
  });

  it('given a timeline divider on a non-timeline message, rejects it (R7.7)', () => {
    const base = samplePersistenceCommands.save_timeline_divider;
    const semantics = { ...base.message.semantics, kind: 'assistant_response' };
    const error = failureOf({ ...base, message: { ...base.message, semantics } });
    expect(error.issues).toEqual([
      {
        path: 'message.semantics.kind',
        message: 'must be timeline_event (R7.7), received assistant_response',
      },
    ]);
  });

  it('given update_title without expected sources, rejects it (R9.9 needs a condition)', () => {
    const base = samplePersistenceCommands.update_title;
    expect(failureOf({ ...base, expectedSources: [] }).issues[0]?.path).toBe('expectedSources');
  });

  it('parsePersistenceCommandOrThrow throws the error', () => {
    expect(() => parsePersistenceCommandOrThrow({ kind: 'nope' })).toThrow(/unknown command kind/);
  });

  it('decodes bytes and reports malformed JSON with its own code', () => {
    const bytes = new TextEncoder().encode(JSON.stringify(samplePersistenceCommands.update_title));
    expect(decodePersistenceCommand(bytes).ok).toBe(true);
    const bad = decodePersistenceCommand(new TextEncoder().encode('{'));
    expect(bad.ok ? undefined : bad.error.code).toBe('malformed_json');
  });
});

describe('the version rule (decision 0011)', () => {
  it('applies a newer version, or any version on a new row', () => {
    expect(decideVersionedWrite(undefined, 0)).toBe('apply');
    expect(decideVersionedWrite(3, 4)).toBe('apply');
  });

  it('drops an equal version as a duplicate and a lower one as stale', () => {
    expect(decideVersionedWrite(4, 4)).toBe('duplicate');
    expect(decideVersionedWrite(4, 3)).toBe('stale');
  });

  it('nextCommandVersion grows with the clock and strictly within one writer', () => {
    expect(nextCommandVersion(undefined, 1000)).toBe(1000);
    expect(nextCommandVersion(1000, 1000)).toBe(1001);
    expect(nextCommandVersion(5000, 1000)).toBe(5001);
    expect(nextCommandVersion(1001, 2000.7)).toBe(2000);
  });
});

describe('PersistenceConfirmation', () => {
  it('carries an outcome when ok and an error otherwise', () => {
    const ok = { commandId: 'cmd-1', sessionId: 'session-1', ok: true, outcome: 'stale' };
    expect(PersistenceConfirmation.parse(ok)).toEqual(ok);
    const failed = { commandId: 'cmd-1', sessionId: 'session-1', ok: false };
    expect(PersistenceConfirmation.safeParse(failed).success).toBe(false);
  });
});
