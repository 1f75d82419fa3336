import type { ModelRequestMessage, ModelRequestPayload, SessionEvent } from '@agentwire/contracts';

/** SHA-256 of a UTF-8 string as lowercase hex: given by the caller (the domain does no I/O). */
export type Sha256Hex = (text: string) => string;

/**
 * One link of a request's digest chain (docs/decisions/0161): the digest of the messages up
 * to and including `message`, from the digest of those before it (`''` for the first).
 */
export function chainDigest(previous: string, message: ModelRequestMessage, sha256: Sha256Hex) {
  return `sha256:${sha256(`${previous}\n${JSON.stringify(message)}`)}`;
}

/** Why a `model_request` could not be rebuilt. */
export type ModelRequestChainFailure = 'unknown_base' | 'base_too_short' | 'digest_mismatch';

/** A `model_request` whose full message list cannot be rebuilt from what came before it. */
export class ModelRequestChainError extends Error {
  override readonly name = 'ModelRequestChainError';
  readonly code: ModelRequestChainFailure;
  readonly sequenceNumber: number;

  constructor(code: ModelRequestChainFailure, sequenceNumber: number, message: string) {
    super(`model_request ${sequenceNumber}: ${message}`);
    this.code = code;
    this.sequenceNumber = sequenceNumber;
  }
}

interface Rebuilt {
  readonly eventId: string;
  readonly messages: readonly ModelRequestMessage[];
  /** `chain[i]`: the digest of the first `i + 1` messages (computed only with a hasher). */
  readonly chain: readonly string[] | undefined;
}

/**
 * Rebuilds the full message list of each `model_request` of one session, fed in order
 * (docs/decisions/0161): a request with a `base` is the base request's first
 * `base.messageCount` messages followed by its own. It keeps the last rebuilt main-turn
 * request of each session, which is what the next one names as base; with `sha256`, it checks
 * each rebuilt request against its `digest`. Use it wherever the whole request is needed
 * (a frontend showing the context, an audit, a test comparing with what the model received).
 */
export class ModelRequestChain {
  readonly #sha256: Sha256Hex | undefined;
  readonly #last = new Map<string, Rebuilt & { readonly sequenceNumber: number }>();

  constructor(sha256?: Sha256Hex) {
    this.#sha256 = sha256;
  }

  /**
   * The full messages of `event` when it is a `model_request` (undefined for any other
   * event). Throws {@link ModelRequestChainError} when its base is not the last request
   * seen, is shorter than it says, or the rebuilt list does not match its digest.
   */
  add(event: SessionEvent): readonly ModelRequestMessage[] | undefined {
    if (event.type !== 'model_request') return undefined;
    const rebuilt = this.#rebuild(event.sequenceNumber, event.id, event.payload, event.sessionId);
    if ((event.payload.querySource ?? 'main_turn') === 'main_turn') {
      this.#last.set(event.sessionId, { ...rebuilt, sequenceNumber: event.sequenceNumber });
    }
    return rebuilt.messages;
  }

  #rebuild(seq: number, eventId: string, payload: ModelRequestPayload, sessionId: string): Rebuilt {
    const { base } = payload;
    let prefix: readonly ModelRequestMessage[] = [];
    let prefixChain: readonly string[] | undefined = [];
    if (base !== undefined) {
      const last = this.#last.get(sessionId);
      if (last === undefined || last.sequenceNumber !== base.sequenceNumber) {
        throw new ModelRequestChainError(
          'unknown_base',
          seq,
          `its base ${base.sequenceNumber} is not the last request seen (${last?.sequenceNumber ?? 'none'})`,
        );
      }
      if (last.eventId !== base.eventId || last.messages.length < base.messageCount) {
        throw new ModelRequestChainError(
          'base_too_short',
          seq,
          `its base ${base.sequenceNumber} has ${last.messages.length} messages, not ${base.messageCount} (or another id)`,
        );
      }
      prefix = last.messages.slice(0, base.messageCount);
      prefixChain = last.chain?.slice(0, base.messageCount);
    }
    const messages = [...prefix, ...payload.messages];
    const sha256 = this.#sha256;
    if (sha256 === undefined || prefixChain === undefined) {
      return { eventId, messages, chain: undefined };
    }
    const chain = [...prefixChain];
    for (const m of payload.messages) chain.push(chainDigest(chain.at(-1) ?? '', m, sha256));
    if (payload.digest !== undefined && (chain.at(-1) ?? '') !== payload.digest) {
      throw new ModelRequestChainError(
        'digest_mismatch',
        seq,
        `the rebuilt ${messages.length} messages do not match its digest`,
      );
    }
    return { eventId, messages, chain };
  }
}
