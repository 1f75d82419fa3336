export {
  buildTitleModelRequest,
  TITLE_REASONING_EFFORT,
  type TitleModelRequest,
} from './build-title-model-request.ts';
export { TitleSidecarConfig } from './config.ts';
export {
  type DecodedTitleRequest,
  type DecodeTitleRequestOptions,
  decodeTitleRequest,
} from './decode-title-request.ts';
export { type GenerateTitleDeps, generateTitle } from './generate-title.ts';
export {
  type RunTitleModelOptions,
  runTitleModel,
  type TitleModelOutcome,
} from './run-title-model.ts';
export {
  createScriptedTitleProvider,
  type ScriptedTitleProviderOptions,
  scriptedTitleOf,
  TITLE_FROM_INPUT_SCENARIO,
  TITLE_SCENARIOS,
  withoutMainTurnDirectives,
} from './scripted-title-provider.ts';
export {
  createTitleMetrics,
  outcomeOf,
  TITLE_ATTRS,
  TITLE_METRICS,
  type TitleMetrics,
} from './title-metrics.ts';
export {
  createTitleModels,
  type ResolvedTitleModel,
  type ResolveTitleModelResult,
  type TitleModelSettings,
  type TitleModels,
} from './title-models.ts';
export {
  startTitleSidecar,
  TITLE_SIDECAR,
  type TitleSidecar,
  type TitleSidecarDeps,
} from './title-sidecar.ts';
export { parseTraceparent, TITLE_SPAN, withTitleSpan } from './title-span.ts';
export {
  GENERATED_SOURCE,
  type GeneratedTitleWrite,
  pgTitleStore,
  type TitleStore,
} from './title-store.ts';
