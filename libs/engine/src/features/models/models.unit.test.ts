import { createScriptedProvider } from '@agentwire/model';
import { describe, expect, it } from 'vitest';
import type { CatalogModel } from '../../kernel/feature.ts';
import { createSessionHarness } from '../../testing/session-harness.ts';
import { startTurn } from '../../testing/start-turn.ts';
import { DeferredDivider } from './models.ts';

const sel = (modelId: string) => ({ providerId: 'scripted', modelId });
const catalog: CatalogModel[] = ['a', 'b', 'c'].map((id, i) => ({
  selection: sel(id),
  contextWindow: 1_000 * (i + 1),
  outputLimit: 100,
  provider: createScriptedProvider({ modelId: id }),
}));

describe('deferred model dividers (R7.9)', () => {
  it('merges consecutive switches, cancels a switch back, and writes at the next turn', () => {
    const d = new DeferredDivider(sel('a'));
    d.switched(sel('b'));
    d.switched(sel('c'));
    expect(d.take(sel('c'))).toEqual({ from: sel('a'), to: sel('c') });
    expect(d.take(sel('c'))).toBeUndefined();
    d.switched(sel('a'));
    d.switched(sel('c'));
    expect(d.take(sel('c'))).toBeUndefined();
  });
});

function harness() {
  const [first] = catalog;
  if (first === undefined) throw new Error('no model');
  return createSessionHarness({ model: first.provider, models: catalog });
}

const dividers = (h: ReturnType<typeof harness>) =>
  h.writer.calls.flatMap((c) => {
    const part = c.value as {
      type?: string;
      kind?: string;
      from?: { modelId: string } | null;
      to?: { modelId: string };
    };
    return c.kind === 'save_part' && part.type === 'timeline' && part.kind === 'model_change'
      ? [`${part.from?.modelId ?? '-'}>${part.to?.modelId}`]
      : [];
  });

describe('/model (R7.4, R7.9)', () => {
  it('switches the next requests; each assistant message names its model; dividers as R7.9 says', async () => {
    const h = harness();
    const run = async (text: string) => (await startTurn(h.session, text)).done;
    await run('one');
    // Three switches between turns, back to the first, then once more.
    await h.session.submit('/model scripted/b');
    await run('two');
    await h.session.submit('/model scripted/c');
    await h.session.submit('/model scripted/a');
    await run('three');
    await h.session.submit('/model scripted/b');
    await run('four');
    expect(dividers(h)).toEqual(['a>b', 'b>a', 'a>b']);
    const models = h.writer.calls.flatMap((c) =>
      c.kind === 'save_assistant_message' ? [(c.value as { modelId: string }).modelId] : [],
    );
    expect(models).toEqual(['a', 'b', 'a', 'b']);
    const selected = h.events.flatMap((e) => (e.type === 'model_selected' ? [e.payload] : []));
    expect(
      selected.map(
        (p) =>
          `${p.previousModelSelection?.modelId}>${p.modelSelection.modelId}:${p.contextWindow}`,
      ),
    ).toEqual(['a>b:2000', 'b>c:3000', 'c>a:1000', 'a>b:2000']);
    const windows = h.events.flatMap((e) =>
      e.type === 'model_complete' ? [e.payload.contextWindow] : [],
    );
    expect(windows).toEqual([1000, 2000, 1000, 2000]);
  });

  it('switching back before the next turn writes no divider', async () => {
    const h = harness();
    await (await startTurn(h.session, 'one')).done;
    await h.session.submit('/model scripted/c');
    await h.session.submit('/model scripted/a');
    await (await startTurn(h.session, 'two')).done;
    expect(dividers(h)).toEqual([]);
  });

  it('refuses a model that is not configured, naming those that are; nothing changes', async () => {
    const h = harness();
    await expect(h.session.submit('/model openai/gpt-9')).rejects.toMatchObject({
      code: 'unknown_model',
      detail: { known: ['scripted/a', 'scripted/b', 'scripted/c'] },
    });
    await expect(h.session.submit('/model nonsense')).rejects.toMatchObject({
      code: 'unknown_model',
    });
    expect(await h.session.submit('/model')).toMatchObject({ result: { model: 'scripted/a' } });
    expect(h.events.filter((e) => e.type === 'model_selected')).toEqual([]);
  });
});
