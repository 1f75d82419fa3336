import { loadConfig } from '@agentwire/service';
import { describe, expect, it } from 'vitest';
import { RuntimeConfig } from './config.ts';

const base = { AW_WORKSPACE_ROOT: '/tmp' };

describe('runtime configuration: residency options (R16.6)', () => {
  it('rejects a high water below the target at start, naming the variable', () => {
    const parsed = RuntimeConfig.safeParse({
      ...base,
      AW_RESIDENT_TARGET: '6',
      AW_RESIDENT_HIGH_WATER: '4',
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toEqual([
      expect.objectContaining({
        path: ['AW_RESIDENT_HIGH_WATER'],
        message: 'must be an integer >= target (6), got 4',
      }),
    ]);
    expect(() =>
      loadConfig(RuntimeConfig, { ...base, AW_RESIDENT_TARGET: '6', AW_RESIDENT_HIGH_WATER: '4' }),
    ).toThrow(/AW_RESIDENT_HIGH_WATER/);
  });

  it('rejects a negative target or idle timeout, and accepts equal target and high water', () => {
    expect(RuntimeConfig.safeParse({ ...base, AW_RESIDENT_TARGET: '-1' }).success).toBe(false);
    expect(RuntimeConfig.safeParse({ ...base, AW_RESIDENT_IDLE_MS: '-5' }).success).toBe(false);
    const equal = RuntimeConfig.parse({
      ...base,
      AW_RESIDENT_TARGET: '3',
      AW_RESIDENT_HIGH_WATER: '3',
      AW_RESIDENT_IDLE_MS: '0',
    });
    expect([equal.AW_RESIDENT_TARGET, equal.AW_RESIDENT_HIGH_WATER]).toEqual([3, 3]);
  });
});

describe('runtime configuration: models (R7.4, docs/decisions/0224)', () => {
  it('takes more models with their limits, and the first model its own', () => {
    const parsed = RuntimeConfig.parse({
      ...base,
      AW_MODEL_CONTEXT_WINDOW: '64000',
      AW_MODELS: '[{"model":"scripted/fast","contextWindow":32000,"outputLimit":4096}]',
    });
    expect(parsed.AW_MODEL_CONTEXT_WINDOW).toBe(64_000);
    expect(parsed.AW_MODELS).toEqual([
      { model: 'scripted/fast', contextWindow: 32_000, outputLimit: 4_096 },
    ]);
    expect(RuntimeConfig.parse(base).AW_MODELS).toEqual([]);
  });

  it.each([
    ['not json', /JSON array/],
    ['[{"model":"fast","contextWindow":1,"outputLimit":1}]', /scripted\/<model>/],
    ['[{"model":"scripted/a","contextWindow":0,"outputLimit":1}]', /AW_MODELS/],
    ['[{"model":"scripted/a","contextWindow":1}]', /AW_MODELS/],
    [
      '[{"model":"scripted/a","contextWindow":1,"outputLimit":1},{"model":"scripted/a","contextWindow":2,"outputLimit":2}]',
      /twice/,
    ],
    ['[{"model":"openai-compatible/x","contextWindow":1,"outputLimit":1}]', /AW_MODEL_BASE_URL/],
  ])('refuses AW_MODELS=%s at start, naming it', (value, message) => {
    expect(() => loadConfig(RuntimeConfig, { ...base, AW_MODELS: value })).toThrow(message);
  });

  it('takes AW_COMPACT_AT as a share of the window or off, and refuses anything else (0229)', () => {
    expect(RuntimeConfig.parse(base).AW_COMPACT_AT).toBe(0.8);
    expect(RuntimeConfig.parse({ ...base, AW_COMPACT_AT: '0.5' }).AW_COMPACT_AT).toBe(0.5);
    expect(RuntimeConfig.parse({ ...base, AW_COMPACT_AT: 'off' }).AW_COMPACT_AT).toBeUndefined();
    for (const value of ['0', '1.5', '-1', 'never']) {
      expect(() => loadConfig(RuntimeConfig, { ...base, AW_COMPACT_AT: value }), value).toThrow(
        /AW_COMPACT_AT/,
      );
    }
  });
});
