import {
  APICallError,
  type FinishReason,
  jsonSchema,
  type LanguageModelUsage,
  type ModelMessage as SdkMessage,
  type TextStreamPart,
  type Tool,
  type ToolSet,
  tool,
} from 'ai';
import type {
  ModelFailure,
  ModelFinishReason,
  ModelMessage,
  ModelReasoningEffort,
  ModelStreamPart,
  ModelToolSpec,
  ModelUsage,
} from './model-provider.ts';

/** Converts the port's conversation into AI SDK model messages. */
export function toSdkMessages(messages: readonly ModelMessage[]): SdkMessage[] {
  return messages.map((m): SdkMessage => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content };
      case 'user':
        return { role: 'user', content: m.content };
      case 'assistant': {
        const calls = (m.toolCalls ?? []).map((c) => ({
          type: 'tool-call' as const,
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          input: c.input,
        }));
        const text = m.content === '' ? [] : [{ type: 'text' as const, text: m.content }];
        return { role: 'assistant', content: [...text, ...calls] };
      }
      case 'tool':
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: m.toolCallId ?? '',
              toolName: m.toolName ?? '',
              output:
                m.isError === true
                  ? { type: 'error-text', value: m.content }
                  : { type: 'text', value: m.content },
            },
          ],
        };
      default: {
        const never: never = m.role;
        return never;
      }
    }
  });
}

/** Declares the port's tools to the AI SDK without `execute`: the runtime runs them. */
export function toSdkTools(specs: readonly ModelToolSpec[]): ToolSet {
  const tools: Record<string, Tool> = {};
  for (const spec of specs) {
    tools[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema(spec.inputSchema as object),
    });
  }
  return tools;
}

/** Maps AI SDK usage to R16.1's usage shape, leaving unknown counts out. */
function fromSdkUsage(usage: LanguageModelUsage): ModelUsage {
  const out: Record<string, number> = {};
  const put = (key: keyof ModelUsage, value: number | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  put('inputTokens', usage.inputTokens);
  put('outputTokens', usage.outputTokens);
  put('totalTokens', usage.totalTokens);
  put('cacheReadTokens', usage.inputTokenDetails?.cacheReadTokens);
  put('cacheWriteTokens', usage.inputTokenDetails?.cacheWriteTokens);
  put('reasoningTokens', usage.outputTokenDetails?.reasoningTokens);
  return out;
}

/** The AI SDK's `reasoning` call option (sent as `reasoning_effort` by OpenAI-compatible providers). */
export type SdkReasoning = 'minimal' | 'low' | 'medium' | 'high';

const SDK_REASONING: { readonly [E in ModelReasoningEffort]: SdkReasoning } = {
  lowest: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
};

/**
 * Maps the port's reasoning effort to the AI SDK's provider-neutral `reasoning` option;
 * `lowest` is `minimal`, the lowest effort reasoning models accept (R9.6).
 */
export function toSdkReasoning(effort: ModelReasoningEffort): SdkReasoning {
  return SDK_REASONING[effort];
}

/** Maps the AI SDK finish reason; `interrupted` is reported as `other`. */
function fromSdkFinishReason(reason: FinishReason): ModelFinishReason {
  return reason === 'interrupted' ? 'other' : reason;
}

/** Classifies a provider error once, at the boundary: retryable or not, with its status. */
export function classifyModelError(error: unknown): ModelFailure {
  if (APICallError.isInstance(error)) {
    const failure: ModelFailure = {
      message: error.message,
      code:
        error.statusCode === undefined
          ? 'provider_call_failed'
          : `provider_http_${error.statusCode}`,
      retryable: error.isRetryable,
    };
    return error.statusCode === undefined ? failure : { ...failure, statusCode: error.statusCode };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message, code: 'provider_error', retryable: false };
}

/**
 * Maps one AI SDK full-stream part to a port part, or `undefined` for parts the runtime
 * does not need (step boundaries, tool-input deltas, sources, pings).
 */
export function fromSdkStreamPart(part: TextStreamPart<ToolSet>): ModelStreamPart | undefined {
  switch (part.type) {
    case 'text-delta':
      return part.text === '' ? undefined : { type: 'text-delta', text: part.text };
    case 'reasoning-delta':
      return part.text === '' ? undefined : { type: 'reasoning-delta', text: part.text };
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
      };
    case 'finish':
      return {
        type: 'finish',
        finishReason: fromSdkFinishReason(part.finishReason),
        usage: fromSdkUsage(part.totalUsage),
      };
    case 'error':
      return { type: 'error', error: classifyModelError(part.error) };
    default:
      return undefined;
  }
}
