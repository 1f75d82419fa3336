import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type LanguageModel, streamText } from 'ai';
import {
  classifyModelError,
  fromSdkStreamPart,
  toSdkMessages,
  toSdkReasoning,
  toSdkTools,
} from './ai-sdk-mapping.ts';
import { ModelConfigError } from './model-error.ts';
import type { ModelProvider, ModelStreamPart } from './model-provider.ts';

/**
 * Options of {@link createAiSdkProvider}.
 *
 * @internal Exported for its tests.
 */
export interface AiSdkProviderOptions {
  /** Any AI SDK language model (a real provider's, or `MockLanguageModelV4` in tests). */
  readonly model: LanguageModel;
  readonly providerId: string;
  readonly modelId: string;
}

/**
 * Adapts an AI SDK language model to the port: one `streamText` call per step, tools
 * declared without `execute` so the step ends at its tool calls and the runtime runs them,
 * no SDK retries (the runtime decides), errors classified into `error` parts. A request's
 * `reasoningEffort` becomes the SDK's `reasoning` call option (`reasoning_effort` on
 * OpenAI-compatible endpoints; docs/decisions/0080).

 *
 * @internal Exported for its tests.
 */
export function createAiSdkProvider(options: AiSdkProviderOptions): ModelProvider {
  return {
    providerId: options.providerId,
    modelId: options.modelId,
    async *stream(request, signal): AsyncGenerator<ModelStreamPart> {
      let failed = false;
      try {
        const result = streamText({
          model: options.model,
          messages: toSdkMessages(request.messages),
          allowSystemInMessages: true,
          tools: toSdkTools(request.tools),
          maxRetries: 0,
          ...(signal === undefined ? {} : { abortSignal: signal }),
          ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          ...(request.maxTokens === undefined ? {} : { maxOutputTokens: request.maxTokens }),
          ...(request.reasoningEffort === undefined
            ? {}
            : { reasoning: toSdkReasoning(request.reasoningEffort) }),
          onError: () => {},
        });
        for await (const sdkPart of result.fullStream) {
          const part = fromSdkStreamPart(sdkPart);
          if (part === undefined) continue;
          if (part.type === 'error') failed = true;
          yield part;
          if (failed) return;
        }
      } catch (error) {
        if (signal?.aborted === true || failed) return;
        yield { type: 'error', error: classifyModelError(error) };
      }
    },
  };
}

/** Connection settings of an OpenAI-compatible endpoint (`AW_MODEL_*` in the runtime's env). */
export interface OpenAiCompatibleConfig {
  /** `AW_MODEL_BASE_URL`, e.g. `https://api.example.com/v1`. */
  readonly baseUrl: string;
  /** `AW_MODEL_API_KEY`; optional for local servers. */
  readonly apiKey?: string;
  /** `AW_MODEL_ID`. */
  readonly modelId: string;
  /** Provider id recorded on messages (default `openai-compatible`). */
  readonly providerId?: string;
}

/** Builds the port on `@ai-sdk/openai-compatible` with usage included in streams. */
export function createOpenAiCompatibleProvider(config: OpenAiCompatibleConfig): ModelProvider {
  if (config.baseUrl === '' || config.modelId === '') {
    throw new ModelConfigError('an OpenAI-compatible provider needs a base URL and a model id');
  }
  const providerId = config.providerId ?? 'openai-compatible';
  const provider = createOpenAICompatible({
    name: providerId,
    baseURL: config.baseUrl,
    includeUsage: true,
    ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
  });
  return createAiSdkProvider({
    model: provider.chatModel(config.modelId),
    providerId,
    modelId: config.modelId,
  });
}
