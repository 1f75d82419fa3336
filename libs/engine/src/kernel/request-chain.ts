import type { ModelRequestBase, ModelRequestMessage } from '@agentwire/contracts';
import { chainDigest } from '@agentwire/domain';
import type { ModelMessage } from '@agentwire/model';
import type { ContentHasher } from './ports.ts';

/** The message fields of one main-turn `model_request`. */
export interface RequestMessages {
  readonly messages: ModelRequestMessage[];
  readonly base?: ModelRequestBase;
  readonly messageCount: number;
  readonly digest?: string;
}

/**
 * The `model_request.messages` form of some messages of the conversation (R16.2).
 *
 * @internal Exported for its tests.
 */
export function toRequestMessages(history: readonly ModelMessage[]): ModelRequestMessage[] {
  return history.map((m) => ({
    role: m.role,
    content: m.content,
    ...(m.toolCalls === undefined || m.toolCalls.length === 0
      ? {}
      : {
          toolCalls: m.toolCalls.map((c) => ({
            id: c.toolCallId,
            name: c.toolName,
            input: c.input as never,
          })),
        }),
    ...(m.toolCallId === undefined ? {} : { toolCallId: m.toolCallId }),
  }));
}

interface Sent {
  readonly sequenceNumber: number;
  readonly eventId: string;
  /** The history's message objects the request was made of, in order. */
  readonly sources: readonly ModelMessage[];
  /** `chain[i]`: the digest of its first `i + 1` messages (with a hasher). */
  readonly chain: readonly string[] | undefined;
}

/** The session's last stored main-turn request, rebuilt in full (a loaded session's base). */
export interface LastRequest {
  readonly sequenceNumber: number;
  readonly eventId: string;
  readonly messages: readonly ModelRequestMessage[];
}

/** JSON with object keys sorted: Postgres (JSONB) gives tool inputs back in its own order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * What one session's main-turn `model_request` events carry (issue 18, docs/decisions/0161):
 * the messages new since the session's previous stored request, with that request as
 * `base` and how many of its messages come first, so no event grows with the session. The
 * history is appended to in place, so the shared prefix is found by object identity; a
 * history that changed under it (or the first request of a loaded session) sends in full.
 * With a hasher, each request carries the digest chain's head (`sha256:<hex>`), extended
 * from the base's: hashing costs only the new messages.
 */
export class RequestChain {
  readonly #hasher: ContentHasher | undefined;
  #last: Sent | undefined;

  /**
   * `last`, for a loaded session: its history is rebuilt from the transcript (new objects),
   * so the prefix it shares with the stream's last request is found by content, once; the
   * first request then extends that one instead of sending the whole history again.
   */
  constructor(
    hasher?: ContentHasher,
    seed?: { history: readonly ModelMessage[]; last: LastRequest },
  ) {
    this.#hasher = hasher;
    if (seed === undefined) return;
    const { history, last } = seed;
    const live = toRequestMessages(history);
    let shared = 0;
    const max = Math.min(live.length, last.messages.length);
    while (shared < max && canonical(live[shared]) === canonical(last.messages[shared]))
      shared += 1;
    if (shared === 0) return;
    const sha256 = hasher?.sha256Hex;
    let chain: string[] | undefined;
    if (sha256 !== undefined) {
      chain = [];
      for (const m of last.messages.slice(0, shared)) {
        chain.push(chainDigest(chain.at(-1) ?? '', m, sha256));
      }
    }
    this.#last = {
      sequenceNumber: last.sequenceNumber,
      eventId: last.eventId,
      sources: history.slice(0, shared),
      chain,
    };
  }

  /**
   * The fields of the next request for `history`, and `commit`, to call with the stored
   * event once it is numbered: a refused request is never a base (docs/decisions/0160).
   */
  next(history: readonly ModelMessage[]): {
    readonly fields: RequestMessages;
    readonly commit: (stored: { sequenceNumber: number; id: string }) => void;
  } {
    const last = this.#last;
    let shared = 0;
    if (last !== undefined) {
      const max = Math.min(last.sources.length, history.length);
      while (shared < max && last.sources[shared] === history[shared]) shared += 1;
    }
    const fresh = toRequestMessages(history.slice(shared));
    const sha256 = this.#hasher?.sha256Hex;
    let chain: string[] | undefined;
    const prefixChain = shared === 0 ? [] : last?.chain?.slice(0, shared);
    if (sha256 !== undefined && prefixChain !== undefined) {
      chain = [...prefixChain];
      for (const m of fresh) chain.push(chainDigest(chain.at(-1) ?? '', m, sha256));
    }
    const digest = chain?.at(-1);
    const fields: RequestMessages = {
      messages: fresh,
      ...(last === undefined || shared === 0
        ? {}
        : {
            base: {
              sequenceNumber: last.sequenceNumber,
              eventId: last.eventId,
              messageCount: shared,
            },
          }),
      messageCount: history.length,
      ...(digest === undefined ? {} : { digest }),
    };
    const sources = [...history];
    return {
      fields,
      commit: (stored) => {
        this.#last = { sequenceNumber: stored.sequenceNumber, eventId: stored.id, sources, chain };
      },
    };
  }
}
