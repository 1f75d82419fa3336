import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig } from './load-config.ts';

const Config = z.object({
  NATS_URL: z.string().url(),
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  AW_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]+$/)
    .default('aw'),
});

describe('loadConfig', () => {
  it('parses and applies defaults', () => {
    const config = loadConfig(Config, { NATS_URL: 'nats://127.0.0.1:4222', HTTP_PORT: '8080' });
    expect(config).toEqual({ NATS_URL: 'nats://127.0.0.1:4222', HTTP_PORT: 8080, AW_PREFIX: 'aw' });
  });

  it('names every bad variable and what is wrong', () => {
    let error: unknown;
    try {
      loadConfig(Config, { HTTP_PORT: '70000', AW_PREFIX: 'Bad Prefix' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.code).toBe('AW_ERR_CONFIG');
    expect(configError.problems.map((p) => p.variable).sort()).toEqual([
      'AW_PREFIX',
      'HTTP_PORT',
      'NATS_URL',
    ]);
    expect(configError.message).toContain('NATS_URL: is required');
    expect(configError.message).toMatch(/HTTP_PORT: .*65535.*\(got "70000"\)/);
    expect(configError.message).toMatch(/AW_PREFIX: .*\(got "Bad Prefix"\)/);
  });

  it('reads process.env by default', () => {
    process.env.AW_TEST_ONLY_VALUE = 'x';
    const config = loadConfig(z.object({ AW_TEST_ONLY_VALUE: z.string() }));
    expect(config.AW_TEST_ONLY_VALUE).toBe('x');
    delete process.env.AW_TEST_ONLY_VALUE;
  });
});
