import { describe, expect, it } from 'vitest';
import { shouldGenerateTitle, type TitleGenerationFacts } from './should-generate-title.ts';

const eligible: TitleGenerationFacts = {
  attemptedBefore: false,
  config: {},
  hasSessionStore: true,
  isChildSession: false,
  turnNumber: 0,
  input: 'Refactor the event store to evict transient events',
};

describe('shouldGenerateTitle (R9.5)', () => {
  it('given every condition holds, when asked, then generation is attempted', () => {
    expect(shouldGenerateTitle(eligible)).toEqual({ ok: true });
    expect(shouldGenerateTitle({ ...eligible, taskType: 'interactive' })).toEqual({ ok: true });
  });

  it('given the input "hi", when asked, then generation never triggers', () => {
    expect(shouldGenerateTitle({ ...eligible, input: 'hi' })).toEqual({
      ok: false,
      reason: 'input_too_short',
    });
  });

  it('given a short input and a /goal bypass, when asked, then the guard is skipped', () => {
    expect(shouldGenerateTitle({ ...eligible, input: 'hi', bypassShortInputGuard: true })).toEqual({
      ok: true,
    });
  });

  it('given a blank input even with the bypass, when asked, then it is refused as empty', () => {
    expect(
      shouldGenerateTitle({ ...eligible, input: '  \n ', bypassShortInputGuard: true }),
    ).toEqual({ ok: false, reason: 'empty_input' });
  });

  it('given 10 code points after collapsing whitespace, when asked, then it passes', () => {
    expect(shouldGenerateTitle({ ...eligible, input: '  abcd    efgh  ' }).ok).toBe(false);
    expect(shouldGenerateTitle({ ...eligible, input: '  abcd    efghi ' }).ok).toBe(true);
    expect(shouldGenerateTitle({ ...eligible, input: '重构事件存储的保留策略吧' }).ok).toBe(true);
  });

  it.each([
    [{ attemptedBefore: true }, 'already_attempted'],
    [{ customTitle: true }, 'custom_title'],
    [{ config: undefined }, 'not_configured'],
    [{ config: { enabled: false } }, 'disabled'],
    [{ hasSessionStore: false }, 'no_session_store'],
    [{ isChildSession: true }, 'child_session'],
    [{ taskType: 'automated' }, 'non_interactive_task'],
    [{ turnNumber: 1 }, 'not_first_turn'],
  ] as const)('given %o, when asked, then it is refused with %s', (change, reason) => {
    expect(shouldGenerateTitle({ ...eligible, ...change })).toEqual({ ok: false, reason });
  });
});
