import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectBus } from '@agentwire/bus';
import { names as namesOf } from '@agentwire/contracts';
import { type Stack, startStack } from '@agentwire/gateway/testing';
import { fileOfBytes, runLongSession, SERVICE_MAINS, WireDriver } from '@agentwire/runtime/testing';
import {
  createTestEnvironment,
  type NatsServerProcess,
  startNatsServer,
  startServiceProcess,
  type TestEnvironment,
} from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 18, item 2 against a broker of its own whose `max_payload` is 128 KiB: the runtime
 * reads the limit from the server's INFO, refuses to start with a bound that does not fit
 * under it, and with one that does, a tool result larger than the broker's limit goes
 * through the blob store and the turn completes (docs/decisions/0162).
 */

const MAX_PAYLOAD = 128 * 1024;
let nats: NatsServerProcess;
let env: TestEnvironment;
let stack: Stack | undefined;

beforeAll(async () => {
  const config = path.join(tmpdir(), `aw-small-payload-${process.pid}.conf`);
  await writeFile(config, `max_payload: ${MAX_PAYLOAD}\njetstream: enabled\n`);
  nats = await startNatsServer({ configFile: config });
  env = await createTestEnvironment();
});

afterAll(async () => {
  await stack?.stop();
  await env?.dispose();
  await nats?.dispose();
});

describe('a broker with a small max_payload (issue 18)', () => {
  it('a bound that does not fit stops the runtime at start, naming both numbers', {
    timeout: 60_000,
  }, async () => {
    const started = startServiceProcess(
      SERVICE_MAINS.runtime,
      {
        NATS_URL: nats.url,
        DATABASE_URL: env.databaseUrl,
        AW_PREFIX: `${env.prefix}x`,
        AW_WORKSPACE_ROOT: tmpdir(),
      },
      { readyWhen: 'runtime accepting' },
    );
    const error = await started.catch((e: unknown) => e);
    expect(String(error)).toMatch(/exited/);
    expect(String(error)).toContain(`max_payload (${MAX_PAYLOAD})`);
    expect(String(error)).toContain('AW_MAX_EVENT_BYTES (262144)');
  });

  it('with a bound under it, a 300 KB tool result goes through the blob store', {
    timeout: 120_000,
  }, async () => {
    stack = await startStack(
      { natsUrl: nats.url, databaseUrl: env.databaseUrl, prefix: env.prefix },
      {
        serviceEnv: {
          runtime: { AW_MAX_EVENT_BYTES: String(64 * 1024), AW_TOOL_OUTPUT_BYTES: '400000' },
        },
      },
    );
    await writeFile(path.join(stack.workspace, 'README.md'), fileOfBytes(300_000));
    const bus = await connectBus({ servers: nats.url, name: 'small-payload-e2e' });
    try {
      expect(bus.nc.info?.max_payload).toBe(MAX_PAYLOAD);
      const names = namesOf(env.prefix);
      const client = new WireDriver(bus, names);
      const opened = await client.open();
      if (!opened.ok) throw new Error(opened.error.message);
      const run = await runLongSession({
        bus,
        names,
        client,
        sessionId: String(opened.sessionId),
        turns: 2,
        prompt: () => '[scenario:read_readme] read it',
      });
      expect(run.events.filter((e) => e.type === 'turn_complete')).toHaveLength(2);
      expect(Math.max(...run.wire.map((m) => m.bytes))).toBeLessThan(MAX_PAYLOAD);
      expect(run.events.some((e) => e.type === 'turn_error')).toBe(false);
    } finally {
      await bus.close();
    }
  });
});
