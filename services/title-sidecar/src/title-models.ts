import type { ModelSelection, TitleError } from '@agentwire/contracts';
import { createOpenAiCompatibleProvider, type ModelProvider } from '@agentwire/model';
import type { TitleSidecarConfig } from './config.ts';
import { createScriptedTitleProvider } from './scripted-title-provider.ts';

/** The provider of a title request and the model's output limit, when known. */
interface ResolvedTitleModel {
  readonly provider: ModelProvider;
  readonly outputLimit?: number;
}

/** Outcome of {@link TitleModels.resolve}. */
type ResolveTitleModelResult =
  | ({ readonly ok: true } & ResolvedTitleModel)
  | { readonly ok: false; readonly error: TitleError };

/** Chooses the model of a title request (R9.6). */
export interface TitleModels {
  /** The model named by `selection`, or the sidecar's default when absent. */
  resolve(selection: ModelSelection | undefined): ResolveTitleModelResult;
}

/** The model settings of {@link TitleSidecarConfig}. */
export type TitleModelSettings = Pick<
  TitleSidecarConfig,
  | 'AW_MODEL_PROVIDER'
  | 'AW_MODEL_BASE_URL'
  | 'AW_MODEL_API_KEY'
  | 'AW_MODEL_ID'
  | 'AW_MODEL_PROVIDER_ID'
  | 'AW_MODEL_OUTPUT_LIMIT'
>;

/**
 * The sidecar's models (R9.6): the scripted title model is always there (provider id
 * `scripted`); an OpenAI-compatible endpoint is there when `AW_MODEL_BASE_URL` is set,
 * reached by provider id `AW_MODEL_PROVIDER_ID` with any model id. A request without a
 * selection gets `AW_MODEL_PROVIDER`'s model; a selection naming another provider is
 * answered `model_unavailable` rather than silently served by a different model.
 */
export function createTitleModels(settings: TitleModelSettings): TitleModels {
  const compatible = new Map<string, ModelProvider>();
  const openAi = (modelId: string): ModelProvider => {
    const known = compatible.get(modelId);
    if (known !== undefined) return known;
    const provider = createOpenAiCompatibleProvider({
      baseUrl: settings.AW_MODEL_BASE_URL ?? '',
      modelId,
      providerId: settings.AW_MODEL_PROVIDER_ID,
      ...(settings.AW_MODEL_API_KEY === undefined ? {} : { apiKey: settings.AW_MODEL_API_KEY }),
    });
    compatible.set(modelId, provider);
    return provider;
  };
  const limit = settings.AW_MODEL_OUTPUT_LIMIT;
  const withLimit = (provider: ModelProvider): ResolveTitleModelResult =>
    limit === undefined ? { ok: true, provider } : { ok: true, provider, outputLimit: limit };
  return {
    resolve(selection) {
      if (selection === undefined) {
        return settings.AW_MODEL_PROVIDER === 'openai-compatible'
          ? withLimit(openAi(settings.AW_MODEL_ID ?? ''))
          : withLimit(createScriptedTitleProvider());
      }
      if (selection.providerId === 'scripted') {
        return { ok: true, provider: createScriptedTitleProvider({ modelId: selection.modelId }) };
      }
      if (
        selection.providerId === settings.AW_MODEL_PROVIDER_ID &&
        settings.AW_MODEL_BASE_URL !== undefined
      ) {
        return { ok: true, provider: openAi(selection.modelId) };
      }
      return {
        ok: false,
        error: {
          code: 'model_unavailable',
          message: `no title model for provider ${JSON.stringify(selection.providerId)}`,
          retryable: false,
        },
      };
    },
  };
}
