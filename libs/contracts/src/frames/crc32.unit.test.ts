import { describe, expect, it } from 'vitest';
import { crc32Hex, utf8Length } from './crc32.ts';

describe('crc32Hex', () => {
  it('matches the standard check value and is over UTF-8 bytes', () => {
    expect(crc32Hex('123456789')).toBe('cbf43926');
    expect(crc32Hex('')).toBe('00000000');
    expect(crc32Hex('é')).not.toBe(crc32Hex('\u00e9'.normalize('NFD')));
  });
});

describe('utf8Length', () => {
  it('counts like TextEncoder', () => {
    for (const s of ['', 'abc', 'ü', '€', '😀', 'a😀b\u0000"', '\ud800x']) {
      expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
    }
  });
});
