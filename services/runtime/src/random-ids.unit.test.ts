import { describe, expect, it } from 'vitest';
import { randomIds } from './random-ids.ts';

describe('randomIds', () => {
  it('gives distinct, subject-safe ids across many refills of the random page', () => {
    const ids = Array.from({ length: 5_000 }, () => randomIds.newId('evt'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-z]+[0-9a-f]{16}$/);
  });

  it('gives W3C trace ids: 32 lowercase hex, never all zeros, distinct', () => {
    const ids = Array.from({ length: 1_000 }, () => randomIds.newTraceId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(id).not.toMatch(/^0+$/);
    }
  });
});
