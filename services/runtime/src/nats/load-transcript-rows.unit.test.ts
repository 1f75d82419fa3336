import { describe, expect, it } from 'vitest';
import { compactRows, PART_COLUMNS } from './load-transcript-rows.ts';

const part = [
  'm1',
  'tool',
  null,
  'c1',
  'read_file',
  'completed',
  { path: 'a' },
  'ok',
  null,
  null,
  null,
];

describe('the cold open reads compact rows, checked column by column', () => {
  it('takes well-formed rows as they are, and an empty aggregate as no rows', () => {
    expect(compactRows(JSON.stringify([part]), 'parts', PART_COLUMNS)).toEqual([part]);
    expect(compactRows(null, 'parts', PART_COLUMNS)).toEqual([]);
  });

  it.each([
    ['{}', /parts: the aggregate is not an array/],
    [JSON.stringify([part.slice(1)]), /parts row 0: not a row of 11 columns/],
    [
      JSON.stringify([part, ['m1', 'image', ...part.slice(2)]]),
      /parts row 1 column 1: unexpected "image"/,
    ],
    [JSON.stringify([[7, ...part.slice(1)]]), /parts row 0 column 0: unexpected 7/],
    [JSON.stringify([[...part.slice(0, 7), 3, ...part.slice(8)]]), /parts row 0 column 7/],
  ])('refuses %s, naming the row and the column', (doc, message) => {
    expect(() => compactRows(doc, 'parts', PART_COLUMNS)).toThrow(message);
  });
});
