import { describe, expect, it } from 'vitest';
import { decideTitleWriteBack, type TitleWriteBackFacts } from './title-write-back.ts';

const generated = { title: 'Tune the reducer', source: 'generated' } as const;
const base: TitleWriteBackFacts = {
  current: { title: 'tune the reducer please', source: 'first_input' },
  candidate: generated,
  firstQuestionEdited: false,
  firstQuestionRewound: false,
};

describe('decideTitleWriteBack (R9.3, R9.9, R16.5)', () => {
  it('given a first_input title, when a generated one arrives, then it is written and emitted', () => {
    expect(decideTitleWriteBack(base)).toEqual({
      ok: true,
      write: generated,
      expectedSources: ['default', 'first_input', 'generated'],
      emit: true,
    });
  });

  it('given a custom title, when any automatic title arrives, then it is never overwritten', () => {
    const current = { title: 'My name', source: 'custom' } as const;
    for (const source of ['default', 'first_input', 'generated'] as const) {
      expect(
        decideTitleWriteBack({ ...base, current, candidate: { title: 'auto', source } }),
      ).toEqual({ ok: false, reason: 'custom_title' });
    }
  });

  it('given a custom title, when the user renames again, then the rename applies', () => {
    const decision = decideTitleWriteBack({
      ...base,
      current: { title: 'Old', source: 'custom' },
      candidate: { title: 'New', source: 'custom' },
      firstQuestionEdited: true,
    });
    expect(decision).toMatchObject({ ok: true, write: { title: 'New', source: 'custom' } });
  });

  it('given the first question was edited or rewound, when a title arrives, then it is dropped', () => {
    expect(decideTitleWriteBack({ ...base, firstQuestionEdited: true })).toEqual({
      ok: false,
      reason: 'first_question_edited',
    });
    expect(decideTitleWriteBack({ ...base, firstQuestionRewound: true })).toEqual({
      ok: false,
      reason: 'first_question_rewound',
    });
  });

  it('given the same title and source, when written back, then no event is emitted', () => {
    const decision = decideTitleWriteBack({ ...base, current: generated });
    expect(decision).toMatchObject({ ok: true, emit: false });
  });

  it('given the same title with a new source, when written back, then an event is emitted', () => {
    const decision = decideTitleWriteBack({
      ...base,
      current: { title: generated.title, source: 'first_input' },
    });
    expect(decision).toMatchObject({ ok: true, emit: true });
  });
});
