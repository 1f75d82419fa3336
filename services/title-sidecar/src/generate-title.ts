import type {
  TitleCompletion,
  TitleDropReason,
  TitleError,
  TitleModel,
  TitleReply,
  TitleRequest,
} from '@agentwire/contracts';
import { cleanTitle } from '@agentwire/domain';
import type { UpdateTitleOutcome } from '@agentwire/store';
import { buildTitleModelRequest } from './build-title-model-request.ts';
import { retryStoreCall, type StoreRetryOptions } from './retry-store-call.ts';
import { runTitleModel } from './run-title-model.ts';
import type { TitleModels } from './title-models.ts';
import { GENERATED_SOURCE, isRetryableStoreError, type TitleStore } from './title-store.ts';

/** What {@link generateTitle} works with; `now` comes from outside (STYLE.md). */
export interface GenerateTitleDeps {
  readonly models: TitleModels;
  readonly store: TitleStore;
  /** Model timeout (R9.6, R16.5). */
  readonly timeoutMs: number;
  readonly now: () => number;
  /**
   * How store calls that fail retryably are retried (issue 9, item 5: a Postgres restart
   * must not lose a title the model already gave); absent: never.
   */
  readonly storeRetry?: Omit<StoreRetryOptions, 'now'>;
}

const NOT_APPLIED: Readonly<
  Record<Exclude<UpdateTitleOutcome, { applied: true }>['reason'], TitleDropReason>
> = {
  not_found: 'session_not_found',
  source_mismatch: 'custom_title',
  first_input_edited: 'first_input_edited',
};

/**
 * Answers one title request (R9.6-R9.9, R16.5): checks the session is persisted, resolves
 * the model, sends the title request (no tools, timeout), cleans the reply with the
 * domain's `cleanTitle`, and writes a title back with source `generated` through the
 * store's compare-and-set. A store call that fails retryably is retried within
 * `storeRetry`'s budget. Expected failures are replies, never exceptions; nothing is written
 * unless the reply says `applied: true`. With `writeBack: false` (a goal's summary title,
 * 0231) it neither checks the session nor writes: the cleaned title is the answer.
 */
export async function generateTitle(
  request: TitleRequest,
  deps: GenerateTitleDeps,
): Promise<TitleReply> {
  const started = deps.now();
  const base = {
    sessionId: request.sessionId,
    ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
  };
  const fail = (error: TitleError, model?: TitleModel): TitleReply => ({
    ok: false,
    ...base,
    error,
    ...(model === undefined ? {} : { model }),
    durationMs: Math.max(0, deps.now() - started),
  });
  const retried = <T>(call: () => Promise<T>) =>
    retryStoreCall(call, { budgetMs: 0, sleep: async () => {}, ...deps.storeRetry, now: deps.now });
  const writeBack = request.writeBack !== false;
  if (writeBack) {
    const exists = await checkSession(request.sessionId, deps.store, retried);
    if (exists !== true) return fail(exists);
  }
  const resolved = deps.models.resolve(request.modelSelection);
  if (!resolved.ok) return fail(resolved.error);
  const model = { providerId: resolved.provider.providerId, modelId: resolved.provider.modelId };
  const outcome = await runTitleModel(
    resolved.provider,
    buildTitleModelRequest(request, resolved.outputLimit),
    { timeoutMs: deps.timeoutMs },
  );
  if (!outcome.ok) return fail(outcome.error, model);
  const answered = { ok: true, ...base, model, completion: outcome.completion } as const;
  const finish = (fields: Omit<AnsweredFields, 'durationMs'>): TitleReply => ({
    ...answered,
    ...fields,
    durationMs: Math.max(0, deps.now() - started),
  });
  const cleaned = cleanCompletion(outcome.completion);
  if (!cleaned.ok)
    return finish({ title: null, applied: false, changed: false, reason: cleaned.reason });
  if (!writeBack) return finish({ title: cleaned.title, applied: false, changed: false });
  try {
    const written = await retried(() =>
      deps.store.writeGeneratedTitle({
        sessionId: request.sessionId,
        title: cleaned.title,
        expectedFirstInput: request.expectedFirstInput,
        now: deps.now(),
      }),
    );
    return finish(writtenFields(cleaned.title, written));
  } catch (error) {
    return fail(storeError(error), model);
  }
}

type AnsweredFields = Omit<
  Extract<TitleReply, { ok: true }>,
  'ok' | 'sessionId' | 'requestId' | 'model' | 'completion'
>;

function cleanCompletion(
  completion: TitleCompletion,
): { ok: true; title: string } | { ok: false; reason: TitleDropReason } {
  return cleanTitle({ text: completion.content, hasToolCalls: completion.toolCallCount > 0 });
}

function writtenFields(
  title: string,
  written: UpdateTitleOutcome,
): Omit<AnsweredFields, 'durationMs'> {
  if (!written.applied) {
    return { title, applied: false, changed: false, reason: NOT_APPLIED[written.reason] };
  }
  return {
    title,
    applied: true,
    changed: written.changed,
    source: GENERATED_SOURCE,
    previousTitle: written.previousTitle,
    previousSource: written.previousSource,
  };
}

async function checkSession(
  sessionId: string,
  store: TitleStore,
  retried: (call: () => Promise<boolean>) => Promise<boolean>,
): Promise<true | TitleError> {
  try {
    if (await retried(() => store.sessionExists(sessionId))) return true;
    return {
      code: 'session_not_found',
      message: `no persisted session ${sessionId}`,
      retryable: false,
    };
  } catch (error) {
    return storeError(error);
  }
}

function storeError(error: unknown): TitleError {
  return {
    code: 'store_error',
    message: error instanceof Error ? error.message : String(error),
    retryable: isRetryableStoreError(error),
  };
}
