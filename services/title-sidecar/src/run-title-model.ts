import type { TitleCompletion, TitleError } from '@agentwire/contracts';
import type { ModelProvider, ModelRequest, ModelStreamPart, ModelUsage } from '@agentwire/model';

/** Outcome of {@link runTitleModel}: the model's answer, or why there is none. */
export type TitleModelOutcome =
  | { readonly ok: true; readonly completion: TitleCompletion }
  | { readonly ok: false; readonly error: TitleError };

/** Options of {@link runTitleModel}. */
export interface RunTitleModelOptions {
  /** The model timeout (R9.6, R16.5); the stream is aborted and abandoned when it fires. */
  readonly timeoutMs: number;
}

const TIMED_OUT = Symbol('timed out');

/**
 * Runs one title model step and gathers its answer (R9.6, R9.7): the text, the stop
 * reason, the usage and the number of tool calls. A provider `error` part becomes
 * `model_error` (retryable as classified by the provider); no `finish` within the timeout
 * becomes `model_timeout` (retryable), even when the provider ignores the abort signal.
 * Never throws.
 */
export async function runTitleModel(
  provider: ModelProvider,
  request: ModelRequest,
  options: RunTitleModelOptions,
): Promise<TitleModelOutcome> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => {
      abort.abort();
      resolve(TIMED_OUT);
    }, options.timeoutMs);
  });
  const iterator = provider.stream(request, abort.signal)[Symbol.asyncIterator]();
  let content = '';
  let toolCallCount = 0;
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), timeout]);
      if (next === TIMED_OUT) return timedOut(options.timeoutMs);
      if (next.done === true) return noFinish(abort.signal.aborted, options.timeoutMs);
      const part: ModelStreamPart = next.value;
      switch (part.type) {
        case 'text-delta':
          content += part.text;
          break;
        case 'reasoning-delta':
          break;
        case 'tool-call':
          toolCallCount += 1;
          break;
        case 'error':
          return {
            ok: false,
            error: {
              code: 'model_error',
              message: `${part.error.code}: ${part.error.message}`,
              retryable: part.error.retryable,
            },
          };
        case 'finish':
          return {
            ok: true,
            completion: {
              content,
              stopReason: part.finishReason,
              usage: usageOf(part.usage),
              toolCallCount,
            },
          };
        default: {
          const never: never = part;
          return never;
        }
      }
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { code: 'model_error', message, retryable: true } };
  } finally {
    clearTimeout(timer);
    abort.abort();
    void iterator.return?.().catch(() => {});
  }
}

function timedOut(timeoutMs: number): TitleModelOutcome {
  return {
    ok: false,
    error: {
      code: 'model_timeout',
      message: `the title model gave no answer within ${timeoutMs} ms`,
      retryable: true,
    },
  };
}

function noFinish(aborted: boolean, timeoutMs: number): TitleModelOutcome {
  if (aborted) return timedOut(timeoutMs);
  return {
    ok: false,
    error: {
      code: 'model_error',
      message: 'the model stream ended without finishing',
      retryable: true,
    },
  };
}

/** Keeps only non-negative integer counts (the contract's `ModelUsage`). */
function usageOf(usage: ModelUsage): ModelUsage {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(usage)) {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) out[key] = value;
  }
  return out;
}
