import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Model switching against real runtime processes (issue 13 item 1, R7.4, R7.9,
 * docs/decisions/0224): the configured models, `model_selected`, the deferred
 * `model_change` dividers in Postgres, and each assistant message's model.
 */
let stack: RuntimeStack;
let client: WireDriver;

const MODELS = JSON.stringify([
  { model: 'scripted/fast', contextWindow: 32_000, outputLimit: 4_096 },
  { model: 'scripted/deep', contextWindow: 1_000_000, outputLimit: 32_000 },
]);

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'model-switching-e2e',
      runtimeEnv: { AW_MODELS: MODELS, AW_MODEL_CONTEXT_WINDOW: '128000' },
    },
    ['rtA', 'rtB'],
  );
  ({ client } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** The session's dividers and assistant models, in transcript order, once `turns` are stored. */
async function transcript(sid: string, turns: number) {
  let found = { dividers: [] as string[], models: [] as string[] };
  await waitUntil(
    async () => {
      const parts = await sql<{
        data: { from: { modelId: string } | null; to: { modelId: string } };
      }>`
        select p.data from parts p join messages m on m.id = p.message_id
        where p.session_id = ${sid} and p.type = 'timeline' order by m.created_at`.execute(
        stack.db,
      );
      const messages = await sql<{ model: string }>`
        select data ->> 'modelId' as model from messages
        where session_id = ${sid} and role = 'assistant' order by created_at`.execute(stack.db);
      found = {
        dividers: parts.rows.map((r) => `${r.data.from?.modelId ?? '-'}>${r.data.to.modelId}`),
        models: messages.rows.map((r) => r.model),
      };
      return found.models.length >= turns;
    },
    { what: `${turns} assistant messages of ${sid}` },
  );
  return found;
}

describe('model switching (R7.4, R7.9)', () => {
  it('three switches, back to the first, once more: exactly the dividers R7.9 prescribes', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    const model = (name: string) => client.op(sid, 'prompt', { text: `/model ${name}` });
    expect(await client.runTurn(sid, 'one', follow)).toMatchObject({ ok: true });
    expect(await model('scripted/fast')).toMatchObject({
      ok: true,
      result: { model: 'scripted/fast', contextWindow: 32_000, outputLimit: 4_096 },
    });
    expect(await client.runTurn(sid, 'two', follow)).toMatchObject({ ok: true });
    await model('scripted/deep');
    await model('scripted/scripted-1');
    expect(await client.runTurn(sid, 'three', follow)).toMatchObject({ ok: true });
    await model('scripted/deep');
    expect(await client.runTurn(sid, 'four', follow)).toMatchObject({ ok: true });
    const bad = await model('openai/gpt-9');
    expect(bad).toMatchObject({
      ok: false,
      error: {
        code: 'unknown_model',
        detail: { known: ['scripted/scripted-1', 'scripted/fast', 'scripted/deep'] },
      },
    });
    const { dividers, models } = await transcript(sid, 4);
    expect(dividers).toEqual(['scripted-1>fast', 'fast>scripted-1', 'scripted-1>deep']);
    expect(models).toEqual(['scripted-1', 'fast', 'scripted-1', 'deep']);
    const windows = follow.events.flatMap((e) =>
      e.type === 'model_complete' ? [(e.payload as { contextWindow?: number }).contextWindow] : [],
    );
    expect(windows).toEqual([128_000, 32_000, 128_000, 1_000_000]);
    await follow.stop();
  });

  it("a switch made before the owner's SIGKILL still writes its divider at the next turn", async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    expect(await client.runTurn(sid, 'one', follow)).toMatchObject({ ok: true });
    await client.op(sid, 'prompt', { text: '/model scripted/fast' });
    await stack.killRuntime(String(opened.owner));
    const after = await client.runTurn(sid, 'after the crash', follow, {
      inputId: `in-${sid}-after`,
    });
    expect(after).toMatchObject({ ok: true, status: 'complete' });
    const { dividers, models } = await transcript(sid, 2);
    expect(dividers).toEqual(['scripted-1>fast']);
    expect(models).toEqual(['scripted-1', 'fast']);
    await follow.stop();
  });
});
