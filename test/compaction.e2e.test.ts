import type { ModelRequestMessage, SessionEvent } from '@agentwire/contracts';
import { ModelRequestChain } from '@agentwire/domain';
import { type RuntimeStack, startRuntimeStack, type WireDriver } from '@agentwire/runtime/testing';
import { waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Compaction against real processes (issue 13 item 3, docs/decisions/0229): a 40-turn
 * scripted session on a small configured window compacts by itself, context usage drops at
 * each boundary, the requests after a boundary hold the summary and the kept prompt only,
 * and after the owner's SIGKILL the next owner rebuilds the same model history from the
 * transcript.
 */
let stack: RuntimeStack;
let client: WireDriver;

const WINDOW = 400;

beforeAll(async () => {
  stack = await startRuntimeStack(
    {
      name: 'compaction-e2e',
      projection: true,
      runtimeEnv: {
        AW_MODEL_CONTEXT_WINDOW: String(WINDOW),
        AW_COMPACT_AT: '0.5',
        // The scripted model refuses a request longer than the window, as a provider does.
        AW_SCRIPTED_CONTEXT_LIMIT: String(WINDOW),
      },
    },
    ['rtA', 'rtB'],
  );
  ({ client } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const SUMMARY = 'Summary of the conversation before this point (compacted):';

interface FullRequest {
  readonly sequenceNumber: number;
  readonly source: string;
  readonly messages: readonly ModelRequestMessage[];
}

/** Each request's whole message list, rebuilt from its bases (0161), with its source. */
function allRequests(events: readonly SessionEvent[]): FullRequest[] {
  const chain = new ModelRequestChain();
  const out: FullRequest[] = [];
  for (const e of events) {
    if (e.type !== 'model_request') continue;
    const source = e.payload.querySource ?? 'main_turn';
    out.push({ sequenceNumber: e.sequenceNumber, source, messages: chain.add(e) ?? [] });
  }
  return out;
}

/** The main-turn requests' whole message lists. */
function fullRequests(events: readonly SessionEvent[]): (readonly ModelRequestMessage[])[] {
  return allRequests(events)
    .filter((r) => r.source === 'main_turn')
    .map((r) => r.messages);
}

/** A prompt of about 50 tokens (the scripted model counts four characters a token). */
const prompt = (n: number) => `turn ${n}: ${'lorem ipsum dolor sit amet '.repeat(7)}`;

describe('compaction (issue 13 item 3)', () => {
  it('a 40-turn session compacts by itself, and a cold open rebuilds the same history', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    for (let n = 1; n <= 40; n += 1) {
      const turn = await client.runTurn(sid, prompt(n), follow);
      expect(turn, `turn ${n}`).toMatchObject({ ok: true, status: 'complete' });
    }
    const boundaries = follow.events.filter((e) => e.type === 'compact_boundary');
    expect(boundaries.length).toBeGreaterThanOrEqual(2);
    for (const b of boundaries) {
      const p = b.payload as {
        trigger: string;
        preCompactTokenCount: number;
        postCompactTokenCount: number;
        keptMessageCount: number;
      };
      expect(p.trigger).toBe('auto');
      expect(p.postCompactTokenCount).toBeLessThan(p.preCompactTokenCount);
      expect(p.preCompactTokenCount).toBeGreaterThanOrEqual(WINDOW / 2);
      expect(p.keptMessageCount).toBe(1);
    }
    // Every summary request names its source; the turn's own requests stay main_turn.
    const sources = follow.events
      .filter((e) => e.type === 'model_request')
      .map((e) => (e.payload as { querySource?: string }).querySource);
    expect(sources.filter((s) => s === 'compact')).toHaveLength(boundaries.length);
    // The first request after each boundary: the summary, then the turn's prompt, nothing else.
    const requests = fullRequests(follow.events);
    const afterBoundary = boundaries.map((b) => {
      const next = follow.events.find(
        (e) =>
          e.type === 'model_request' &&
          e.sequenceNumber > b.sequenceNumber &&
          (e.payload as { querySource?: string }).querySource === 'main_turn',
      );
      const index = follow.events
        .filter(
          (e) =>
            e.type === 'model_request' &&
            (e.payload as { querySource?: string }).querySource === 'main_turn',
        )
        .indexOf(next as SessionEvent);
      return requests[index] ?? [];
    });
    for (const messages of afterBoundary) {
      expect(messages.map((m) => m.role)).toEqual(['user', 'user']);
      expect(messages[0]?.content.startsWith(SUMMARY)).toBe(true);
      expect(messages[1]?.content.startsWith('turn ')).toBe(true);
    }
    // Context usage drops at a boundary in the projection too.
    await waitUntil(
      async () => {
        const reply = await client.request(stack.names.projectionGet, { sessionId: sid });
        const p = reply.ok ? (reply.projection as { lastCompact?: unknown }) : undefined;
        return p?.lastCompact !== null && p?.lastCompact !== undefined;
      },
      { what: 'the last compaction in the projection' },
    );

    // Cold open after a SIGKILL: the next owner rebuilds the history from the transcript.
    const lastBefore = requests.at(-1) ?? [];
    const killedAt = follow.events.at(-1)?.sequenceNumber ?? 0;
    const answer = follow.events
      .filter((e) => e.type === 'model_complete')
      .map((e) => e.payload as { content: string; querySource?: string })
      .filter((p) => (p.querySource ?? 'main_turn') === 'main_turn')
      .at(-1)?.content;
    await stack.killRuntime(String(opened.owner));
    const after = await client.runTurn(sid, prompt(41), follow, { inputId: `in-${sid}-41` });
    expect(after).toMatchObject({ ok: true, status: 'complete' });
    // The history the next owner rebuilt: what the live one held, the last answer included.
    const live = [...lastBefore.map((m) => [m.role, m.content]), ['assistant', answer]];
    expect(live[0]?.[1]?.startsWith(SUMMARY)).toBe(true);
    const [first] = allRequests(follow.events).filter((r) => r.sequenceNumber > killedAt);
    const sent = (first?.messages ?? []).map((m) => [m.role, m.content]);
    if (first?.source === 'compact') {
      // The turn compacted first: it summarised that history, the instruction after it.
      expect(sent.slice(0, -1)).toEqual(live);
    } else {
      expect(first?.source).toBe('main_turn');
      expect(sent).toEqual([...live, ['user', prompt(41)]]);
    }
    await follow.stop();
  }, 240_000);

  it('a request the model refuses as too long compacts, and the turn sends it again and completes', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(opened.error.message);
    const sid = String(opened.sessionId);
    const follow = client.follow(sid, 0);
    // Under half the window: no automatic compaction before the second turn.
    expect(await client.runTurn(sid, `one: ${'a'.repeat(600)}`, follow)).toMatchObject({
      ok: true,
      status: 'complete',
    });
    // The second prompt takes the request past the window: the model refuses it.
    const second = await client.runTurn(sid, `two: ${'b'.repeat(1040)}`, follow);
    expect(second).toMatchObject({ ok: true, status: 'complete' });
    const turnId = String(second.ok ? second.turnId : '');
    const seen = follow.events
      .filter((e) => e.turnId === turnId && e.type !== 'model_streaming')
      .map((e) => e.type)
      .filter((t) => t.startsWith('model_') || t.startsWith('compact_') || t.startsWith('turn_'));
    expect(seen).toEqual([
      'turn_started',
      'model_request',
      'model_error',
      'compact_started',
      'model_request',
      'model_complete',
      'compact_boundary',
      'compact_completed',
      'model_request',
      'model_complete',
      'turn_complete',
    ]);
    const boundary = follow.events.find((e) => e.type === 'compact_boundary');
    expect(boundary?.payload).toMatchObject({ trigger: 'reactive', keptMessageCount: 1 });
    await follow.stop();
  });
});
