import { createDatabase, markFirstInputEdited, migrate, updateTitle } from '@agentwire/store';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TitleSidecarConfig } from './config.ts';
import {
  connectTitleClient,
  seedSession,
  storedTitle,
  type TitleClient,
  waitFor,
} from './testing/title-test-kit.ts';
import { startTitleSidecar, type TitleSidecar } from './title-sidecar.ts';

let env: TestEnvironment;
let db: ReturnType<typeof createDatabase>;
let sidecar: TitleSidecar;
let client: TitleClient;
let config: TitleSidecarConfig;

const INPUT = 'please fix the flaky login test in the CI pipeline';

beforeAll(async () => {
  env = await createTestEnvironment();
  db = createDatabase(env.databaseUrl, { poolSize: 2 });
  await migrate(db);
  config = TitleSidecarConfig.parse({
    NATS_URL: env.natsUrl,
    DATABASE_URL: env.databaseUrl,
    AW_PREFIX: env.prefix,
    HTTP_HOST: '127.0.0.1',
    AW_INSTANCE_ID: 'title-a',
    AW_TITLE_TIMEOUT_MS: '2500',
    AW_TITLE_MAX_REQUEST_BYTES: String(16 * 1024),
    AW_PG_POOL_SIZE: '2',
  });
  sidecar = await startTitleSidecar(config);
  client = await connectTitleClient(env.natsUrl, env.prefix);
});

afterAll(async () => {
  await client?.close();
  await sidecar?.stop();
  await db?.destroy();
  await env?.dispose();
});

describe('title sidecar against NATS and Postgres', () => {
  it('writes a generated title back while the source is first_input (R9.9)', async () => {
    await seedSession(db, 'gen-1', INPUT);
    const reply = await client.request({
      sessionId: 'gen-1',
      input: INPUT,
      expectedFirstInput: INPUT,
    });
    expect(reply).toMatchObject({
      ok: true,
      title: 'Please fix the flaky login test',
      applied: true,
      changed: true,
      source: 'generated',
      previousSource: 'first_input',
      previousTitle: 'please fix the flaky login test in the CI pipeline',
    });
    expect(await storedTitle(db, 'gen-1')).toEqual({
      title: 'Please fix the flaky login test',
      source: 'generated',
    });
    const again = await client.request({ sessionId: 'gen-1', input: INPUT });
    expect(again).toMatchObject({ ok: true, applied: true, changed: false });
  });

  it('does not overwrite a session renamed before the request (R9.3)', async () => {
    await seedSession(db, 'custom-1', INPUT);
    await rename('custom-1', 'My own name');
    const reply = await client.request({ sessionId: 'custom-1', input: INPUT });
    expect(reply).toMatchObject({
      ok: true,
      title: 'Please fix the flaky login test',
      applied: false,
      reason: 'custom_title',
    });
    expect(await storedTitle(db, 'custom-1')).toEqual({ title: 'My own name', source: 'custom' });
  });

  it('drops the title when the session is renamed while the model runs', async () => {
    const input = '[scenario:title_slow] rename me while the model thinks';
    await seedSession(db, 'custom-2', input);
    const pending = client.request({ sessionId: 'custom-2', input });
    await waitFor('the request in flight', () => sidecar.inFlight() === 1);
    await rename('custom-2', 'Renamed meanwhile');
    const reply = await pending;
    expect(reply).toMatchObject({
      ok: true,
      title: 'Slowly generated session title',
      applied: false,
      reason: 'custom_title',
    });
    expect(await storedTitle(db, 'custom-2')).toEqual({
      title: 'Renamed meanwhile',
      source: 'custom',
    });
  });

  it('drops the title when the first input was edited (R9.9)', async () => {
    await seedSession(db, 'edited-1', INPUT);
    await markFirstInputEdited(db, 'edited-1');
    const reply = await client.request({ sessionId: 'edited-1', input: INPUT });
    expect(reply).toMatchObject({ ok: true, applied: false, reason: 'first_input_edited' });
    expect(await storedTitle(db, 'edited-1')).toEqual({ title: INPUT, source: 'first_input' });

    await seedSession(db, 'edited-2', 'the stored first input is different now');
    const stale = await client.request({
      sessionId: 'edited-2',
      input: INPUT,
      expectedFirstInput: INPUT,
    });
    expect(stale).toMatchObject({ ok: true, applied: false, reason: 'first_input_edited' });
    expect((await storedTitle(db, 'edited-2')).source).toBe('first_input');
  });

  it('answers model_timeout and writes nothing when the model stalls', async () => {
    const input = '[scenario:title_stall] this model never answers in time';
    await seedSession(db, 'timeout-1', input);
    const reply = await client.request({ sessionId: 'timeout-1', input });
    expect(reply).toMatchObject({ ok: false, error: { code: 'model_timeout', retryable: true } });
    expect(reply.durationMs).toBeGreaterThanOrEqual(config.AW_TITLE_TIMEOUT_MS - 5);
    expect(await storedTitle(db, 'timeout-1')).toEqual({ title: input, source: 'first_input' });
  });

  it('answers bad inputs with typed errors naming what was wrong', async () => {
    expect(await client.request('{"sessionId": "x",')).toMatchObject({
      ok: false,
      error: { code: 'invalid_json' },
    });
    const invalid = await client.request({ sessionId: 'has space', input: 42 });
    expect(invalid).toMatchObject({
      ok: false,
      sessionId: 'has space',
      error: { code: 'invalid_request' },
    });
    if (!invalid.ok)
      expect(invalid.error.issues?.map((i) => i.path).sort()).toEqual(['input', 'sessionId']);
    expect(await client.request({ sessionId: 'nobody', input: INPUT })).toMatchObject({
      ok: false,
      error: { code: 'session_not_found', retryable: false },
    });
    await seedSession(db, 'big-1', 'short first input for the big request');
    const big = await client.request({ sessionId: 'big-1', input: 'x'.repeat(20_000) });
    expect(big).toMatchObject({ ok: false, error: { code: 'payload_too_large' } });
    expect((await storedTitle(db, 'big-1')).source).toBe('first_input');
  });

  it('serves health, readiness and metrics', async () => {
    const base = `http://127.0.0.1:${sidecar.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      detail: { nats: 'up', postgres: 'up', requests: 'serving' },
    });
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/agentwire_titles_requests_total\{[^}]*outcome="applied"[^}]*\} [1-9]/);
    expect(text).toMatch(/agentwire_titles_dropped_total\{[^}]*reason="custom_title"[^}]*\} [1-9]/);
    expect(text).toMatch(/agentwire_titles_errors_total\{[^}]*code="model_timeout"[^}]*\} [1-9]/);
    expect(text).toContain('agentwire_titles_duration_bucket');
  });

  it('shares requests between two instances in the queue group, and drains on stop', async () => {
    const second = await startTitleSidecar({ ...config, AW_INSTANCE_ID: 'title-b' });
    try {
      const before = { a: sidecar.answered(), b: second.answered() };
      const ids = Array.from({ length: 24 }, (_, i) => `share-${i}`);
      for (const id of ids) await seedSession(db, id, `${id} needs a descriptive title`);
      const replies = await Promise.all(
        ids.map((id) =>
          client.request({ sessionId: id, input: `${id} needs a descriptive title` }),
        ),
      );
      expect(replies.every((r) => r.ok && r.applied)).toBe(true);
      expect(sidecar.answered() - before.a + (second.answered() - before.b)).toBe(24);
      expect(sidecar.answered() - before.a).toBeGreaterThan(0);
      expect(second.answered() - before.b).toBeGreaterThan(0);
    } finally {
      await second.stop();
    }
  });

  it('finishes a request in flight when stopped, then leaves the queue group', async () => {
    const third = await startTitleSidecar({ ...config, AW_INSTANCE_ID: 'title-c' });
    const input = '[scenario:title_slow] drain must still answer this one';
    await seedSession(db, 'drain-1', input);
    // Requests spread randomly over the group: send until one lands on the third instance.
    const pending: Promise<unknown>[] = [];
    await waitFor('a request in flight on the third instance', () => {
      if (third.inFlight() > 0) return true;
      pending.push(client.request({ sessionId: 'drain-1', input }));
      return false;
    });
    const stopped = third.stop();
    const replies = await Promise.all(pending);
    await stopped;
    expect(replies.every((r) => (r as { ok: boolean }).ok)).toBe(true);
    expect(third.inFlight()).toBe(0);
    const answeredByThird = third.answered();
    expect(answeredByThird).toBeGreaterThan(0);
    const after = await Promise.all(
      Array.from({ length: 8 }, () =>
        client.request({ sessionId: 'drain-1', input: 'after the drain' }),
      ),
    );
    expect(after.every((r) => r.ok)).toBe(true);
    expect(third.answered()).toBe(answeredByThird);
  });
});

async function rename(sessionId: string, title: string): Promise<void> {
  const outcome = await updateTitle(db, {
    sessionId,
    title,
    source: 'custom',
    expectedSources: ['default', 'first_input', 'generated', 'custom'],
    updatedAt: Date.now(),
  });
  expect(outcome.applied).toBe(true);
}
