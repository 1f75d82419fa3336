import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAll } from './snapshot-read.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aw-snapshot-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function readFile(bytes: number, size: number, limit: number): Uint8Array {
  const file = path.join(dir, `f${bytes}-${size}-${limit}`);
  writeFileSync(file, 'x'.repeat(bytes));
  const fd = openSync(file, 'r');
  try {
    return readAll(fd, size, limit);
  } finally {
    closeSync(fd);
  }
}

describe('readAll (0244)', () => {
  it('reads a file into a buffer of its size plus one byte, not a larger shared one', () => {
    const bytes = readFile(10_240, 10_240, 1024 * 1024);
    expect(bytes.byteLength).toBe(10_240);
    expect(bytes.buffer.byteLength).toBe(10_241);
  });

  it('reads on when the file grew after it was looked at', () => {
    expect(readFile(5_000, 100, 1024 * 1024).byteLength).toBe(5_000);
  });

  it('stops one byte past the limit, so that the caller sees it is over', () => {
    expect(readFile(5_000, 5_000, 4_096).byteLength).toBe(4_097);
    expect(readFile(5_000, 100, 4_096).byteLength).toBe(4_097);
  });

  it('reads an empty file as no bytes', () => {
    expect(readFile(0, 0, 4_096).byteLength).toBe(0);
  });
});
