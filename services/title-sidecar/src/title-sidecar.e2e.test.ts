import { createDatabase, migrate } from '@agentwire/store';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTitleSidecar, type TitleSidecarProcess } from './testing/spawn-title-sidecar.ts';
import {
  connectTitleClient,
  seedSession,
  storedTitle,
  type TitleClient,
  waitFor,
} from './testing/title-test-kit.ts';

let env: TestEnvironment;
let db: ReturnType<typeof createDatabase>;
let proc: TitleSidecarProcess;
let client: TitleClient;

beforeAll(async () => {
  env = await createTestEnvironment();
  db = createDatabase(env.databaseUrl, { poolSize: 2 });
  await migrate(db);
  proc = await spawnTitleSidecar({
    NATS_URL: env.natsUrl,
    DATABASE_URL: env.databaseUrl,
    AW_PREFIX: env.prefix,
    AW_TITLE_TIMEOUT_MS: '10000',
  });
  client = await connectTitleClient(env.natsUrl, env.prefix);
});

afterAll(async () => {
  if (proc?.child.exitCode === null) proc.child.kill('SIGKILL');
  await client?.close();
  await db?.destroy();
  await env?.dispose();
});

async function inFlight(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const match = /^agentwire_titles_in_flight\{[^}]*\} (\d+)$/m.exec(text);
  return Number(match?.[1] ?? -1);
}

describe('title sidecar as a process (node services/title-sidecar/src/main.ts)', () => {
  it('serves health and readiness, and writes a generated title back', async () => {
    const base = `http://127.0.0.1:${proc.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const input = 'add retries with backoff to the upload client';
    await seedSession(db, 'proc-1', input);
    const reply = await client.request({ sessionId: 'proc-1', input, expectedFirstInput: input });
    expect(reply).toMatchObject({ ok: true, applied: true, changed: true, source: 'generated' });
    expect(await storedTitle(db, 'proc-1')).toEqual({
      title: 'Add retries with backoff to the',
      source: 'generated',
    });
  });

  it('on SIGTERM finishes the request in flight, then exits 0', async () => {
    const input = '[scenario:title_slow] the drain must still answer this request';
    await seedSession(db, 'proc-2', input);
    const pending = client.request({ sessionId: 'proc-2', input });
    await waitFor('the request in flight', async () => (await inFlight(proc.port)) === 1);
    proc.child.kill('SIGTERM');
    const reply = await pending;
    expect(reply).toMatchObject({
      ok: true,
      applied: true,
      title: 'Slowly generated session title',
    });
    expect(await proc.exited).toBe(0);
    expect(proc.lines.some((l) => l.includes('title-sidecar draining'))).toBe(true);
    await expect(client.request({ sessionId: 'proc-2', input })).rejects.toThrow();
  });
});
