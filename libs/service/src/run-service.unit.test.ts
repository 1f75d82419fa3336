import { describe, expect, it } from 'vitest';
import { runService, type ServiceHost } from './run-service.ts';

class FakeHost implements ServiceHost {
  readonly handlers = new Map<string, Set<() => void>>();
  readonly exits: number[] = [];
  on(signal: NodeJS.Signals, handler: () => void) {
    const set = this.handlers.get(signal) ?? new Set();
    set.add(handler);
    this.handlers.set(signal, set);
  }
  off(signal: NodeJS.Signals, handler: () => void) {
    this.handlers.get(signal)?.delete(handler);
  }
  exit(code: number) {
    this.exits.push(code);
  }
  emit(signal: NodeJS.Signals) {
    for (const h of this.handlers.get(signal) ?? []) h();
  }
}

function recorder() {
  const messages: string[] = [];
  const log = (_obj: object, msg?: string) => messages.push(msg ?? '');
  return { messages, logger: { info: log, warn: log, error: log } };
}

describe('runService', () => {
  it('starts, drains once on SIGTERM and exits 0', async () => {
    const host = new FakeHost();
    const { messages, logger } = recorder();
    let stops = 0;
    let release = () => {};
    const stopped = new Promise<void>((resolve) => {
      release = resolve;
    });
    const running = await runService({
      name: 'svc',
      host,
      logger,
      start: async () => {},
      stop: async () => {
        stops++;
        await stopped;
      },
    });
    host.emit('SIGTERM');
    host.emit('SIGINT');
    release();
    expect(await running.shutdown('test')).toBe(0);
    expect(stops).toBe(1);
    expect(host.exits).toEqual([0]);
    expect(host.handlers.get('SIGTERM')?.size).toBe(0);
    expect(messages).toEqual([
      'svc starting',
      'svc started',
      'svc draining',
      'svc already draining',
      'svc already draining',
      'svc stopped',
    ]);
  });

  it('exits 1 when the drain throws', async () => {
    const host = new FakeHost();
    const running = await runService({
      name: 'svc',
      host,
      start: async () => {},
      stop: async () => {
        throw new Error('cannot close');
      },
    });
    expect(await running.shutdown('test')).toBe(1);
    expect(host.exits).toEqual([1]);
  });

  it('exits 1 when the drain exceeds its timeout', async () => {
    const host = new FakeHost();
    const { messages, logger } = recorder();
    const running = await runService({
      name: 'svc',
      host,
      logger,
      drainTimeoutMs: 20,
      start: async () => {},
      stop: () => new Promise(() => {}),
    });
    expect(await running.shutdown('test')).toBe(1);
    expect(messages).toContain('svc drain timed out');
  });

  it('exits 1 when start fails, after cleaning up with stop', async () => {
    const host = new FakeHost();
    const { messages, logger } = recorder();
    let stops = 0;
    await runService({
      name: 'svc',
      host,
      logger,
      start: async () => {
        throw new Error('no nats');
      },
      stop: async () => {
        stops++;
      },
    });
    expect(stops).toBe(1);
    expect(host.exits).toEqual([1]);
    expect(messages).toContain('svc failed to start');
  });
});
