import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BaseServiceConfig } from './base-service-config.ts';
import type { ServiceHost } from './run-service.ts';
import { runServiceMain } from './run-service-main.ts';

class FakeHost implements ServiceHost {
  readonly exits: number[] = [];
  on() {}
  off() {}
  exit(code: number) {
    this.exits.push(code);
  }
}

const Config = BaseServiceConfig.extend({ AW_EXAMPLE_SIZE: z.coerce.number().int().min(1) });

describe('runServiceMain', () => {
  it('exits 1 without setting up when the environment is invalid', async () => {
    const host = new FakeHost();
    let setups = 0;
    const running = await runServiceMain({
      name: 'svc',
      config: Config,
      env: { LOG_LEVEL: 'silent', AW_EXAMPLE_SIZE: '0' },
      host,
      setup: () => {
        setups++;
        return { start: async () => {}, stop: async () => {} };
      },
    });
    expect(running).toBeUndefined();
    expect(setups).toBe(0);
    expect(host.exits).toEqual([1]);
  });

  it('hands setup the parsed config and drains with AW_DRAIN_TIMEOUT_MS', async () => {
    const host = new FakeHost();
    const seen: unknown[] = [];
    const running = await runServiceMain({
      name: 'svc',
      config: Config,
      env: { LOG_LEVEL: 'silent', AW_EXAMPLE_SIZE: '3', AW_DRAIN_TIMEOUT_MS: '20' },
      host,
      setup: ({ config }) => {
        seen.push(config.AW_EXAMPLE_SIZE, config.LOG_LEVEL);
        return { start: async () => {}, stop: () => new Promise(() => {}) };
      },
    });
    expect(seen).toEqual([3, 'silent']);
    expect(await running?.shutdown('test')).toBe(1);
    expect(host.exits).toEqual([1]);
  });
});
