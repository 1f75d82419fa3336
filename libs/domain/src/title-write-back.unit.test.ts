import { describe, expect, it } from 'vitest';
import {
  decideTitleWriteBack,
  replaceableTitleSources,
  type TitleWriteBackFacts,
} from './title-write-back.ts';

const base: TitleWriteBackFacts = {
  stored: {
    title: 'tune the reducer please',
    source: 'first_input',
    firstInput: 'tune the reducer please',
    firstInputEdited: false,
  },
  candidate: { title: 'Tune the reducer', source: 'generated' },
  expectedSources: replaceableTitleSources('generated'),
};

describe('decideTitleWriteBack (R9.3, R9.9, R16.5)', () => {
  it('given a first_input title, when a generated one arrives, then it is written as a change', () => {
    expect(decideTitleWriteBack(base)).toEqual({ ok: true, changed: true });
  });

  it('given a custom title, when any automatic title arrives, then it is never overwritten', () => {
    const stored = { ...base.stored, title: 'My name', source: 'custom' } as const;
    for (const source of ['default', 'first_input', 'generated'] as const) {
      expect(
        decideTitleWriteBack({
          ...base,
          stored,
          candidate: { title: 'auto', source },
          expectedSources: replaceableTitleSources(source),
        }),
      ).toEqual({ ok: false, reason: 'source_mismatch' });
    }
  });

  it('given a custom title, when the user renames again, then the rename applies', () => {
    const stored = { ...base.stored, title: 'My name', source: 'custom' } as const;
    const candidate = { title: 'Better name', source: 'custom' } as const;
    expect(
      decideTitleWriteBack({
        ...base,
        stored,
        candidate,
        expectedSources: replaceableTitleSources('custom'),
      }),
    ).toEqual({ ok: true, changed: true });
  });

  it('given an edited first question, then an automatic title is dropped but a rename applies', () => {
    const stored = { ...base.stored, firstInputEdited: true };
    expect(decideTitleWriteBack({ ...base, stored })).toEqual({
      ok: false,
      reason: 'first_input_edited',
    });
    expect(
      decideTitleWriteBack({
        ...base,
        stored,
        candidate: { title: 'Mine', source: 'custom' },
        expectedSources: replaceableTitleSources('custom'),
      }),
    ).toEqual({ ok: true, changed: true });
  });

  it('given a first input other than the one the title came from, then the title is dropped', () => {
    expect(decideTitleWriteBack({ ...base, expectedFirstInput: 'another question' })).toEqual({
      ok: false,
      reason: 'first_input_edited',
    });
    expect(
      decideTitleWriteBack({ ...base, expectedFirstInput: base.stored.firstInput ?? '' }),
    ).toEqual({ ok: true, changed: true });
  });

  it('given the same title and source, then it applies without a change (no event, R16.5)', () => {
    const candidate = { title: base.stored.title ?? '', source: 'first_input' } as const;
    expect(decideTitleWriteBack({ ...base, candidate })).toEqual({ ok: true, changed: false });
  });

  it('an automatic title replaces only automatic ones; a rename replaces any', () => {
    expect(replaceableTitleSources('generated')).toEqual(['default', 'first_input', 'generated']);
    expect(replaceableTitleSources('custom')).toContain('custom');
  });
});
