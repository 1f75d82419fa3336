import { describe, expect, it } from 'vitest';
import { modelChangeDivider, noteModelSwitch } from './model-switch-divider.ts';

const a = { providerId: 'anthropic', modelId: 'opus' };
const b = { providerId: 'openai', modelId: 'gpt' };
const c = { providerId: 'google', modelId: 'gemini' };

describe('model-switch divider coalescing (R7.9)', () => {
  it('given nothing pending, when the model switches, then a switch is noted', () => {
    expect(noteModelSwitch(null, a, b)).toEqual({ from: a, to: b });
  });

  it('given a pending switch, when it switches again, then the two merge', () => {
    const pending = noteModelSwitch(noteModelSwitch(null, a, b), b, c);
    expect(pending).toEqual({ from: a, to: c });
  });

  it('given a pending switch, when it switches back to the original, then it cancels', () => {
    expect(noteModelSwitch(noteModelSwitch(null, a, b), b, a)).toBeNull();
  });

  it('given only the reasoning level changes, when noted, then nothing is pending', () => {
    expect(noteModelSwitch(null, a, { ...a, reasoningLevel: 'high' })).toBeNull();
  });

  it('given a pending switch, when the next turn starts, then one model_change divider is written', () => {
    const pending = noteModelSwitch(noteModelSwitch(null, a, b), b, c);
    expect(modelChangeDivider(pending)).toEqual({ kind: 'model_change', from: a, to: c });
    expect(modelChangeDivider(null)).toBeNull();
  });
});
