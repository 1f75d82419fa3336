import { describe, expect, it } from 'vitest';
import { advanceLastSequence, getLastSequence } from './session-sequence.ts';
import {
  ensureSession,
  getSession,
  listSessions,
  markFirstInputEdited,
  updateTitle,
} from './sessions-repository.ts';
import { useStoreTestContext } from './test-support.ts';

const ctx = useStoreTestContext();

const ensure = (id = 's1', title = 'fix the build') =>
  ensureSession(ctx.db, {
    id,
    title,
    titleSource: 'first_input',
    firstInput: 'fix the build please',
    cwd: '/repo',
    root: '/repo',
    createdAt: 1_700_000_000_000,
  });

describe('ensureSession (R13.2)', () => {
  it('inserts once; repeating changes nothing', async () => {
    expect(await ensure()).toEqual({ created: true });
    expect(await ensure('s1', 'other')).toEqual({ created: false });
    expect(await getSession(ctx.db, 's1')).toMatchObject({ title: 'fix the build', cwd: '/repo' });
  });

  it('fills in a stub left by an earlier event and keeps its high-water mark', async () => {
    await advanceLastSequence(ctx.db, 's1', 8);
    expect(await listSessions(ctx.db)).toEqual([]);
    expect(await ensure()).toEqual({ created: true });
    expect(await getSession(ctx.db, 's1')).toMatchObject({
      title: 'fix the build',
      last_sequence: 8,
    });
    await advanceLastSequence(ctx.db, 's1', 5);
    expect(await getLastSequence(ctx.db, 's1')).toBe(8);
    expect((await listSessions(ctx.db, { cwd: '/repo' })).map((s) => s.id)).toEqual(['s1']);
  });
});

describe('updateTitle (R9.9)', () => {
  const generated = {
    sessionId: 's1',
    title: 'Fix CI build',
    source: 'generated',
    updatedAt: 2,
  } as const;
  const automatic = ['default', 'first_input', 'generated'] as const;

  it('applies while the source is expected and the first input unedited', async () => {
    await ensure();
    expect(await updateTitle(ctx.db, { ...generated, expectedSources: automatic })).toEqual({
      applied: true,
      previousTitle: 'fix the build',
      previousSource: 'first_input',
      changed: true,
    });
    expect(await getSession(ctx.db, 's1')).toMatchObject({
      title: 'Fix CI build',
      title_source: 'generated',
    });
  });

  it('never overwrites a custom title', async () => {
    await ensure();
    await updateTitle(ctx.db, {
      sessionId: 's1',
      title: 'Mine',
      source: 'custom',
      expectedSources: [...automatic, 'custom'],
      updatedAt: 2,
    });
    expect(await updateTitle(ctx.db, { ...generated, expectedSources: automatic })).toEqual({
      applied: false,
      reason: 'source_mismatch',
    });
    expect(await getSession(ctx.db, 's1')).toMatchObject({ title: 'Mine', title_source: 'custom' });
  });

  it('drops a generated title once the first input was edited', async () => {
    await ensure();
    await markFirstInputEdited(ctx.db, 's1');
    expect(await updateTitle(ctx.db, { ...generated, expectedSources: automatic })).toEqual({
      applied: false,
      reason: 'first_input_edited',
    });
  });

  it('reports a session that is not there (or only a stub)', async () => {
    await advanceLastSequence(ctx.db, 's1', 1);
    expect(await updateTitle(ctx.db, { ...generated, expectedSources: automatic })).toEqual({
      applied: false,
      reason: 'not_found',
    });
  });
});
