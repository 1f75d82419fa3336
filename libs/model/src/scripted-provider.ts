import { ModelConfigError } from './model-error.ts';
import type {
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelStreamPart,
  ModelUsage,
} from './model-provider.ts';
import {
  SCRIPTED_SCENARIOS,
  type ScriptedItem,
  type ScriptedScenario,
  type ScriptedStep,
} from './scripted-scenarios.ts';

/** Options of {@link createScriptedProvider}. */
export interface ScriptedProviderOptions {
  /** Scenario used when the prompt names none (default `streamed_text`). */
  readonly defaultScenario?: string;
  /** Extra or replacing scenarios, merged over the built-in ones. */
  readonly scenarios?: Readonly<Record<string, ScriptedScenario>>;
  /** Overrides every scenario's chunk delay (e.g. 0 in fast tests). */
  readonly chunkDelayMs?: number;
  readonly providerId?: string;
  readonly modelId?: string;
  /**
   * Tokens of input it takes (four characters a token): a longer request is answered with
   * the `context_length_exceeded` error a provider gives. Absent: any length.
   */
  readonly contextLimit?: number;
}

/** The error a request over {@link ScriptedProviderOptions.contextLimit} gets. */
async function* contextExceeded(tokens: number, limit: number): AsyncGenerator<ModelStreamPart> {
  yield {
    type: 'error',
    error: {
      message: `the request has ${tokens} tokens, more than the context window of ${limit}`,
      code: 'context_length_exceeded',
      retryable: false,
    },
  };
}

const DIRECTIVE = /\[scenario:([A-Za-z0-9_-]+)\]/;

/**
 * The scenario a `[scenario:<name>]` directive in `text` names, if any.
 *
 * @internal Exported for its tests.
 */
export function scenarioDirective(text: string): string | undefined {
  return DIRECTIVE.exec(text)?.[1];
}

/**
 * A deterministic model for tests and demos (issue 6). It is stateless: the scenario comes
 * from the last user message's directive (or the default), and the step from the number of
 * assistant messages after that user message, so the same request always streams the
 * same parts. Tool call ids derive from the request length, unique within a session.
 */
export function createScriptedProvider(options: ScriptedProviderOptions = {}): ModelProvider {
  const scenarios: Readonly<Record<string, ScriptedScenario>> = {
    ...SCRIPTED_SCENARIOS,
    ...options.scenarios,
  };
  const defaultName = options.defaultScenario ?? 'streamed_text';
  if (scenarios[defaultName] === undefined) {
    throw new ModelConfigError(`unknown default scenario ${JSON.stringify(defaultName)}`);
  }
  return {
    providerId: options.providerId ?? 'scripted',
    modelId: options.modelId ?? 'scripted-1',
    stream(request, signal) {
      const limit = options.contextLimit;
      const tokens = usageOf(request.messages, 0).inputTokens ?? 0;
      if (limit !== undefined && tokens > limit) return contextExceeded(tokens, limit);
      const { scenario, step } =
        request.querySource === 'target_completion_verification'
          ? verdictStep(request, scenarios, defaultName)
          : selectStep(request, scenarios, defaultName);
      const delay = options.chunkDelayMs ?? scenario.chunkDelayMs ?? 0;
      return streamStep(step, request, delay, signal);
    },
  };
}

function selectStep(
  request: ModelRequest,
  scenarios: Readonly<Record<string, ScriptedScenario>>,
  defaultName: string,
): { scenario: ScriptedScenario; step: ScriptedStep } {
  const lastUser = findLastIndex(request.messages, (m) => m.role === 'user');
  const userText = lastUser >= 0 ? (request.messages[lastUser]?.content ?? '') : '';
  const name = scenarioDirective(userText) ?? defaultName;
  const scenario = scenarios[name];
  if (scenario === undefined) {
    const failure: ScriptedStep = {
      items: [
        {
          type: 'error',
          error: {
            message: `unknown scenario ${name}`,
            code: 'unknown_scenario',
            retryable: false,
          },
        },
      ],
    };
    return { scenario: { steps: [failure] }, step: failure };
  }
  const index = request.messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
  const step = scenario.steps[Math.min(index, scenario.steps.length - 1)] ?? { items: [] };
  return { scenario, step };
}

/**
 * A goal verification's answer: the scenario's verdict for the number of goal turns so far
 * (user messages before the last that carry the scenario's directive), else a pass.
 */
function verdictStep(
  request: ModelRequest,
  scenarios: Readonly<Record<string, ScriptedScenario>>,
  defaultName: string,
): { scenario: ScriptedScenario; step: ScriptedStep } {
  const selected = selectStep(request, scenarios, defaultName);
  const lastUser = findLastIndex(request.messages, (m) => m.role === 'user');
  const name = scenarioDirective(request.messages[lastUser]?.content ?? '') ?? defaultName;
  const verdicts = selected.scenario.verdicts;
  if (verdicts === undefined || verdicts.length === 0) {
    const pass = '{"passed": true, "reason": "scripted: nothing to check"}';
    return { scenario: selected.scenario, step: { items: [{ type: 'text', text: pass }] } };
  }
  const directive = `[scenario:${name}]`;
  const turns = request.messages
    .slice(0, Math.max(0, lastUser))
    .filter((m) => m.role === 'user' && m.content.includes(directive)).length;
  const text = verdicts[Math.min(Math.max(turns, 1), verdicts.length) - 1] ?? '';
  return { scenario: selected.scenario, step: { items: [{ type: 'text', text }] } };
}

async function* streamStep(
  step: ScriptedStep,
  request: ModelRequest,
  delayMs: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<ModelStreamPart> {
  let output = 0;
  let calls = 0;
  for (const item of step.items) {
    if (item.type === 'hold') {
      if (signal === undefined) {
        yield { type: 'error', error: HOLD_WITHOUT_SIGNAL };
        return;
      }
      await aborted(signal);
      return;
    }
    for (const part of expand(item, request.messages.length, calls)) {
      if (delayMs > 0) await sleep(delayMs, signal);
      if (signal?.aborted) return;
      if (part.type === 'text-delta' || part.type === 'reasoning-delta') output += part.text.length;
      if (part.type === 'tool-call') calls += 1;
      yield part;
      if (part.type === 'error') return;
    }
  }
  const finishReason = step.finishReason ?? (calls > 0 ? 'tool-calls' : 'stop');
  yield { type: 'finish', finishReason, usage: usageOf(request.messages, output) };
}

/** A `hold` that nothing could ever end is a script error, not a hang. */
const HOLD_WITHOUT_SIGNAL = {
  message: 'a scripted hold needs an abort signal',
  code: 'hold_without_signal',
  retryable: false,
} as const;

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

function expand(
  item: Exclude<ScriptedItem, { readonly type: 'hold' }>,
  messageCount: number,
  callIndex: number,
): ModelStreamPart[] {
  switch (item.type) {
    case 'text':
    case 'reasoning': {
      const type = item.type === 'text' ? 'text-delta' : 'reasoning-delta';
      return (item.text.match(/\S+\s*|\s+/g) ?? []).map((text) => ({ type, text }));
    }
    case 'tool-call':
      return [
        {
          type: 'tool-call',
          toolCallId: `call_${messageCount}_${callIndex}`,
          toolName: item.toolName,
          input: item.input,
        },
      ];
    case 'error':
      return [{ type: 'error', error: item.error }];
    default: {
      const never: never = item;
      return never;
    }
  }
}

/** Deterministic usage: about four characters per token. */
function usageOf(messages: readonly ModelMessage[], outputChars: number): ModelUsage {
  const inputChars = messages.reduce(
    (sum, m) => sum + m.content.length + JSON.stringify(m.toolCalls ?? []).length,
    0,
  );
  const inputTokens = Math.ceil(inputChars / 4);
  const outputTokens = Math.ceil(outputChars / 4);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i -= 1) {
    const item = items[i];
    if (item !== undefined && predicate(item)) return i;
  }
  return -1;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
