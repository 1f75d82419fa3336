import { describe, expect, it } from 'vitest';
import { example } from './example.ts';

describe('the README example', () => {
  it('round-trips and narrows an event', () => {
    expect(example(1_700_000_000_000)).toBe('turn 1: fix the flaky test');
  });
});
