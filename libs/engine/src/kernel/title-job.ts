import {
  type ErrorPayload,
  type ModelSelection,
  type TitleReply,
  type TitleRequest,
  titleModelMessages,
} from '@agentwire/contracts';
import type { IdSource, RuntimeLogger } from './ports.ts';
import type { SessionEmitter } from './session-emitter.ts';

/** What asking for a title gave: the sidecar's reply, or no answer at all. */
export type TitleGeneratorResult =
  | { readonly kind: 'reply'; readonly reply: TitleReply }
  | {
      readonly kind: 'unavailable';
      readonly reason: 'no_responders' | 'timeout' | 'transport' | 'invalid_reply';
      readonly message: string;
    };

/** The title sidecar as the runtime sees it (DESIGN.md flow 4): one request, one reply. */
export interface TitleGenerator {
  generate(request: TitleRequest): Promise<TitleGeneratorResult>;
}

/** Dependencies of {@link runTitleJob}. */
export interface TitleJobDeps {
  readonly emitter: SessionEmitter;
  readonly generator: TitleGenerator;
  readonly ids: IdSource;
  readonly logger: RuntimeLogger;
  /** False once the session closed or left residency: late results are then dropped. */
  readonly stillOpen?: () => boolean;
}

/** One title generation (R9.4-R9.7). */
export interface TitleJobSpec {
  readonly input: string;
  /** `titleGeneration.modelSelection`, else the session's model (R9.6). */
  readonly model: ModelSelection;
  /**
   * `goal_summary_title` asks for a goal's summary title (R9.10, docs/decisions/0231): the
   * sidecar writes nothing back, and the title comes back as `titled`. `session_title` by
   * default.
   */
  readonly querySource?: 'session_title' | 'goal_summary_title';
}

/**
 * How a title job ended: the sidecar wrote `title` back (`applied`, to be announced in the
 * job's trace), the model answered but nothing was written (`not_applied`), the request
 * failed (`failed`, `model_error` emitted) or the session closed meanwhile (`dropped`).
 */
export type TitleJobOutcome =
  | { readonly kind: 'applied'; readonly title: string; readonly traceId: string }
  | { readonly kind: 'titled'; readonly title: string }
  | { readonly kind: 'not_applied' | 'failed' | 'dropped' };

function unavailableError(reason: string, message: string): ErrorPayload {
  return {
    type: 'title_unavailable',
    message,
    code: reason,
    retryable: reason !== 'invalid_reply',
    attribution: { source: 'runtime', reason },
  };
}

/**
 * Generates the session's title through the sidecar (R9.4-R9.9, DESIGN.md flow 4). Its own
 * trace (R9.7); session-level events (no turn): `model_request` with the exact messages the
 * sidecar sends and `querySource: "session_title"`, then `model_complete` (usage) on a
 * reply or `model_error` when the sidecar failed or did not answer. Never throws a failure
 * of the sidecar: the turn goes on. Resolves with the outcome; a title the conditional
 * write-back applied (R9.9) is the caller's to announce, in order with the session's other
 * title changes (docs/decisions/0130).
 */
export async function runTitleJob(
  deps: TitleJobDeps,
  spec: TitleJobSpec,
): Promise<TitleJobOutcome> {
  const { emitter } = deps;
  const querySource = spec.querySource ?? 'session_title';
  const summary = querySource === 'goal_summary_title';
  const traceId = deps.ids.newTraceId();
  const requestId = deps.ids.newId('title');
  await emitter.emit('model_request', null, traceId, {
    messages: titleModelMessages(spec.input),
    providerId: spec.model.providerId,
    modelId: spec.model.modelId,
    querySource,
    toolCount: 0,
  });
  const result = await deps.generator.generate({
    sessionId: emitter.sessionId,
    input: spec.input,
    modelSelection: spec.model,
    ...(summary ? { writeBack: false } : { expectedFirstInput: spec.input }),
    traceparent: `00-${traceId}-${deps.ids.newTraceId().slice(0, 16)}-01`,
    requestId,
  });
  const sessionId = emitter.sessionId;
  if (deps.stillOpen?.() === false) {
    deps.logger.info({ sessionId, requestId }, 'title reply after the session closed; dropped');
    return { kind: 'dropped' };
  }
  let error: ErrorPayload | undefined;
  if (result.kind === 'unavailable') error = unavailableError(result.reason, result.message);
  else if (!result.reply.ok) {
    const e = result.reply.error;
    error = {
      type: 'title_error',
      message: e.message,
      code: e.code,
      retryable: e.retryable,
      attribution: { source: 'runtime', reason: e.code },
    };
  }
  if (error !== undefined) {
    deps.logger.warn({ sessionId, requestId, error }, 'title generation failed; the turn goes on');
    await emitter.emit('model_error', null, traceId, {
      error,
      retryable: error.retryable ?? false,
      querySource,
      providerId: spec.model.providerId,
      modelId: spec.model.modelId,
    });
    return { kind: 'failed' };
  }
  if (result.kind !== 'reply' || !result.reply.ok) return { kind: 'failed' };
  const reply = result.reply;
  await emitter.emit('model_complete', null, traceId, {
    content: reply.completion.content,
    stopReason: reply.completion.stopReason,
    usage: reply.completion.usage,
    querySource,
    toolCallCount: reply.completion.toolCallCount,
    providerId: reply.model.providerId,
    modelId: reply.model.modelId,
  });
  if (summary && reply.title !== null) return { kind: 'titled', title: reply.title };
  if (!reply.applied || reply.title === null) {
    deps.logger.info({ sessionId, requestId, reason: reply.reason }, 'generated title not applied');
    return { kind: 'not_applied' };
  }
  return { kind: 'applied', title: reply.title, traceId };
}
