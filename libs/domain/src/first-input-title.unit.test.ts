import { describe, expect, it } from 'vitest';
import { firstInputTitle, UNTITLED_SESSION_TITLE } from './first-input-title.ts';

describe('firstInputTitle (R9.2)', () => {
  it('given a 61-character input, when titled, then it is cut to 57 characters plus ...', () => {
    const input = 'a'.repeat(61);
    const title = firstInputTitle(input);
    expect(title).toBe(`${'a'.repeat(57)}...`);
    expect(title).toHaveLength(60);
  });

  it('given a 60-character input, when titled, then it is kept as is', () => {
    expect(firstInputTitle('b'.repeat(60))).toBe('b'.repeat(60));
  });

  it('given an empty or blank input, when titled, then it is Untitled session', () => {
    expect(firstInputTitle('')).toBe(UNTITLED_SESSION_TITLE);
    expect(firstInputTitle(' \n\t ')).toBe('Untitled session');
  });

  it('given runs of whitespace, when titled, then they collapse to single spaces', () => {
    expect(firstInputTitle('  fix\n\nthe   build\t now ')).toBe('fix the build now');
  });

  it('given whitespace that only shrinks a long input under 60, when titled, then no cut', () => {
    const input = `${'x'.repeat(30)}${' '.repeat(40)}${'y'.repeat(29)}`;
    expect(firstInputTitle(input)).toBe(`${'x'.repeat(30)} ${'y'.repeat(29)}`);
  });

  it('given astral characters, when titled, then code points are counted, not UTF-16 units', () => {
    const sixty = '😀'.repeat(60);
    expect(firstInputTitle(sixty)).toBe(sixty);
    expect(firstInputTitle('😀'.repeat(61))).toBe(`${'😀'.repeat(57)}...`);
  });
});
