import type { Part, UserMessage } from '@agentwire/contracts';
import { historyFromTranscript, type TranscriptRow } from '@agentwire/engine';
import { createSessionHarness, type RecordingWriter } from '@agentwire/engine/testing';
import { createScriptedProvider, type ModelMessage, type ModelProvider } from '@agentwire/model';
import type { Figure } from '../figure.ts';
import type { BenchGroup } from '../group.ts';
import { median } from '../stats.ts';

/** Messages of the bench session (two a turn) and the compactions among them. */
const MESSAGES = 2_000;
const BOUNDARIES = 5;
const REPEATS = 20;

const log = (msg: string) => console.error(`[compaction] ${msg}`);

/** About four characters a token, as the engine and the scripted model count. */
function tokens(messages: readonly ModelMessage[]): number {
  return Math.ceil(messages.reduce((sum, m) => sum + m.content.length, 0) / 4);
}

/** The rows the runtime's loader would read back from what the engine wrote (R10.4). */
function rowsOf(writer: RecordingWriter): TranscriptRow[] {
  const parts = new Map<string, Part[]>();
  const order: { id: string; role: 'user' | 'assistant'; message: unknown }[] = [];
  for (const call of writer.calls) {
    if (call.kind === 'save_user_message') {
      const { message, parts: own } = call.value as { message: UserMessage; parts: Part[] };
      order.push({ id: message.id, role: 'user', message });
      parts.set(message.id, [...own]);
    } else if (call.kind === 'save_assistant_message') {
      const message = call.value as { id: string };
      order.push({ id: message.id, role: 'assistant', message });
    } else if (call.kind === 'save_part') {
      const part = call.value as Part;
      parts.set(part.messageId, [...(parts.get(part.messageId) ?? []), part]);
    }
  }
  return order.map(({ id, role, message }) => {
    const m = message as {
      synthetic?: boolean;
      semantics?: { providerVisibility?: string; kind?: string };
    };
    return {
      role,
      providerVisibility: m.semantics?.providerVisibility ?? null,
      synthetic: m.synthetic === true,
      kind: m.semantics?.kind ?? null,
      parts: (parts.get(id) ?? []).flatMap((p) =>
        p.type === 'text'
          ? [
              {
                type: 'text' as const,
                text: p.text,
                toolCallId: null,
                toolName: null,
                status: null,
                input: null,
                output: null,
                error: null,
              },
            ]
          : [],
      ),
    };
  });
}

/** Median time of `REPEATS` runs of `body`, in ms. */
function timed(body: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i += 1) {
    const started = performance.now();
    body();
    times.push(performance.now() - started);
  }
  return median(times);
}

/**
 * Group `compaction` (issue 13): a 2,000-message session run by the engine on the scripted
 * model, `/compact` every 200 turns (5 boundaries). `model_history_build_ms` is the cold
 * open's history build (`historyFromTranscript`) over the transcript the engine wrote,
 * beside the same rows built with their summaries read as plain messages (the whole
 * conversation: the raw pass). `prompt_tokens_ratio`: the tokens of every main-turn request
 * sent over those the same requests would have held without compaction (the whole
 * conversation up to each prompt); `last_history_tokens_ratio`: the rebuilt history's size
 * over the whole conversation's.
 */
export const compactionGroup: BenchGroup = {
  name: 'compaction',
  description: 'history build after 5 compactions of a 2,000-message session, prompt size',
  async run(): Promise<readonly Figure[]> {
    // What each main-turn request held (a summary request offers no tools).
    const scripted = createScriptedProvider();
    const sent: number[] = [];
    const model: ModelProvider = {
      providerId: scripted.providerId,
      modelId: scripted.modelId,
      stream: (request, signal) => {
        if (request.tools.length > 0) sent.push(tokens(request.messages));
        return scripted.stream(request, signal);
      },
    };
    const h = createSessionHarness({ model });
    const turns = MESSAGES / 2;
    const every = turns / BOUNDARIES;
    for (let n = 1; n <= turns; n += 1) {
      const admitted = await h.session.submit(
        `question ${n}: what does the code at line ${n} do, and why?`,
      );
      if (!admitted.ok || !('done' in admitted)) throw new Error(`turn ${n} did not start`);
      await admitted.done;
      if (n % every === 0) {
        const compacted = await h.session.submit(`/compact up to question ${n}`);
        if (!compacted.ok || !('result' in compacted) || compacted.result.ok !== true) {
          throw new Error(`compaction after turn ${n} failed: ${JSON.stringify(compacted)}`);
        }
      }
    }
    const rows = rowsOf(h.writer);
    const boundaries = h.events.filter((e) => e.type === 'compact_boundary').length;
    const plain = rows.map((r) => (r.kind === 'compact_summary' ? { ...r, kind: null } : r));
    log(`${rows.length} messages, ${boundaries} boundaries`);
    const compacted = historyFromTranscript(rows);
    const whole = historyFromTranscript(plain);
    const build = timed(() => historyFromTranscript(rows));
    const raw = timed(() => historyFromTranscript(plain));
    // Without compaction, turn n's request is the whole conversation up to its prompt.
    const real = whole.filter((m) => m.summary !== true);
    const unbounded: number[] = [];
    for (let i = 0; i < real.length; i += 1) {
      if (real[i]?.role === 'user') unbounded.push(tokens(real.slice(0, i + 1)));
    }
    const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
    await h.session.close();
    return [
      { name: 'compaction.model_history_build_ms', value: build, unit: 'ms', baseline: raw },
      {
        name: 'compaction.prompt_tokens_ratio',
        value: sum(sent) / sum(unbounded),
        unit: 'ratio',
      },
      {
        name: 'compaction.last_history_tokens_ratio',
        value: tokens(compacted) / tokens(whole),
        unit: 'ratio',
      },
      { name: 'compaction.boundaries', value: boundaries, unit: 'count' },
    ];
  },
};
