import type { TitleRequest } from '@agentwire/contracts';
import type { ModelProvider } from '@agentwire/model';
import type { UpdateTitleOutcome } from '@agentwire/store';
import { describe, expect, it } from 'vitest';
import { generateTitle } from './generate-title.ts';
import { createTitleModels } from './title-models.ts';
import type { GeneratedTitleWrite, TitleStore } from './title-store.ts';

/** An in-memory store that answers like the real compare-and-set. */
class FakeStore implements TitleStore {
  readonly writes: GeneratedTitleWrite[] = [];
  exists = true;
  outcome: UpdateTitleOutcome = {
    applied: true,
    previousTitle: 'Fix the flaky login test',
    previousSource: 'first_input',
    changed: true,
  };
  failWith: Error | undefined;
  async sessionExists(): Promise<boolean> {
    if (this.failWith !== undefined) throw this.failWith;
    return this.exists;
  }
  /** Failures the next write-backs throw, in turn (a connection cut by a restart). */
  readonly writeFailures: Error[] = [];
  async writeGeneratedTitle(write: GeneratedTitleWrite): Promise<UpdateTitleOutcome> {
    this.writes.push(write);
    const failure = this.writeFailures.shift();
    if (failure !== undefined) throw failure;
    return this.outcome;
  }
}

const models = createTitleModels({
  AW_MODEL_PROVIDER: 'scripted',
  AW_MODEL_PROVIDER_ID: 'openai-compatible',
});
const request = (input: string, extra: Partial<TitleRequest> = {}): TitleRequest => ({
  sessionId: 's-1',
  input,
  ...extra,
});
const run = (store: FakeStore, req: TitleRequest, timeoutMs = 5000) =>
  generateTitle(req, { models, store, timeoutMs, now: () => 1_700_000_000_000 });

describe('generateTitle: reply handling', () => {
  it('writes a generated title back and reports the change', async () => {
    const store = new FakeStore();
    const reply = await run(
      store,
      request('please fix the flaky login test in CI', {
        requestId: 'r-1',
        expectedFirstInput: 'x',
      }),
    );
    expect(reply).toMatchObject({
      ok: true,
      sessionId: 's-1',
      requestId: 'r-1',
      title: 'Please fix the flaky login test',
      applied: true,
      changed: true,
      source: 'generated',
      previousSource: 'first_input',
      model: { providerId: 'scripted', modelId: 'scripted-title-1' },
      completion: { stopReason: 'stop', toolCallCount: 0 },
    });
    expect(store.writes).toEqual([
      {
        sessionId: 's-1',
        title: 'Please fix the flaky login test',
        expectedFirstInput: 'x',
        now: 1_700_000_000_000,
      },
    ]);
  });

  it('cleans a fenced reply with a thinking block (R9.8)', async () => {
    const store = new FakeStore();
    const reply = await run(store, request('[scenario:title_fenced] name this'));
    expect(reply).toMatchObject({ ok: true, title: 'Fenced reply title', applied: true });
  });

  it.each([
    ['title_tool_call', 'tool_calls'],
    ['title_empty', 'empty'],
  ])('gives no title and writes nothing for %s', async (scenario, reason) => {
    const store = new FakeStore();
    const reply = await run(store, request(`[scenario:${scenario}] name this session`));
    expect(reply).toMatchObject({ ok: true, title: null, applied: false, changed: false, reason });
    expect(store.writes).toEqual([]);
  });

  it.each([
    [{ applied: false, reason: 'source_mismatch' } as const, 'custom_title'],
    [{ applied: false, reason: 'first_input_edited' } as const, 'first_input_edited'],
    [{ applied: false, reason: 'not_found' } as const, 'session_not_found'],
  ])('reports a dropped write-back %j as %s', async (outcome, reason) => {
    const store = new FakeStore();
    store.outcome = outcome;
    const reply = await run(store, request('name this session please'));
    expect(reply).toMatchObject({
      ok: true,
      title: 'Name this session please',
      applied: false,
      changed: false,
      reason,
    });
  });

  it('reports an unchanged title as applied but not changed', async () => {
    const store = new FakeStore();
    store.outcome = {
      applied: true,
      previousTitle: 'Same',
      previousSource: 'generated',
      changed: false,
    };
    expect(await run(store, request('name this session please'))).toMatchObject({
      applied: true,
      changed: false,
    });
  });

  it('answers model_timeout and writes nothing when the model stalls', async () => {
    const store = new FakeStore();
    const reply = await run(store, request('[scenario:title_stall] name this'), 50);
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'model_timeout', retryable: true },
      model: { providerId: 'scripted' },
    });
    expect(store.writes).toEqual([]);
  });

  it('times out a provider that ignores the abort signal', async () => {
    const deaf: ModelProvider = {
      providerId: 'deaf',
      modelId: 'deaf-1',
      async *stream() {
        await new Promise(() => {});
      },
    };
    const store = new FakeStore();
    const reply = await generateTitle(request('name this session please'), {
      models: { resolve: () => ({ ok: true, provider: deaf }) },
      store,
      timeoutMs: 30,
      now: Date.now,
    });
    expect(reply).toMatchObject({ ok: false, error: { code: 'model_timeout' } });
  });

  it('answers model_error with the provider classification', async () => {
    const reply = await run(new FakeStore(), request('[scenario:title_model_error] name this'));
    expect(reply).toMatchObject({ ok: false, error: { code: 'model_error', retryable: true } });
    if (!reply.ok) expect(reply.error.message).toContain('provider_unavailable');
  });

  it('refuses an unknown session before calling the model', async () => {
    const store = new FakeStore();
    store.exists = false;
    const reply = await run(store, request('name this session please'));
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'session_not_found', retryable: false },
    });
    if (!reply.ok) expect(reply.model).toBeUndefined();
    expect(store.writes).toEqual([]);
  });

  it('answers a summary title without a session or a write-back (writeBack false, 0231)', async () => {
    const store = new FakeStore();
    store.exists = false;
    const reply = await run(
      store,
      request('get the integration suite green on CI', { writeBack: false }),
    );
    expect(reply).toMatchObject({
      ok: true,
      title: 'Get the integration suite green on',
      applied: false,
      changed: false,
    });
    if (reply.ok) expect(reply.reason).toBeUndefined();
    expect(store.writes).toEqual([]);
  });

  it('answers store_error when Postgres fails', async () => {
    const store = new FakeStore();
    store.failWith = new Error('connection refused');
    const reply = await run(store, request('name this session please'));
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'store_error', message: 'connection refused' },
    });
  });

  it('retries a write-back cut by a Postgres restart and applies the title (issue 9, item 5)', async () => {
    const store = new FakeStore();
    store.writeFailures.push(new Error('Connection terminated unexpectedly'));
    store.writeFailures.push(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    let t = 1_700_000_000_000;
    const retries: number[] = [];
    const reply = await generateTitle(request('please fix the flaky login test in CI'), {
      models,
      store,
      timeoutMs: 5000,
      now: () => t,
      storeRetry: {
        budgetMs: 10_000,
        sleep: async (ms) => {
          t += ms;
        },
        onRetry: (_err, attempt) => retries.push(attempt),
      },
    });
    expect(reply).toMatchObject({ ok: true, applied: true, source: 'generated' });
    expect(store.writes).toHaveLength(3);
    expect(retries).toEqual([1, 2]);
  });

  it('answers model_unavailable for a provider the sidecar does not serve', async () => {
    const reply = await run(
      new FakeStore(),
      request('name this session please', {
        modelSelection: { providerId: 'anthropic', modelId: 'x' },
      }),
    );
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'model_unavailable', retryable: false },
    });
  });

  it('serves a scripted selection with its model id', async () => {
    const reply = await run(
      new FakeStore(),
      request('name this session please', {
        modelSelection: { providerId: 'scripted', modelId: 'tiny' },
      }),
    );
    expect(reply).toMatchObject({ ok: true, model: { providerId: 'scripted', modelId: 'tiny' } });
  });
});
