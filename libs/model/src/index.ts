export { createOpenAiCompatibleProvider } from './ai-sdk-provider.ts';
export type {
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelStreamPart,
  ModelToolCall,
  ModelToolSpec,
  ModelUsage,
} from './model-provider.ts';
export { createScriptedProvider } from './scripted-provider.ts';
export { LONG_COMMAND, type ScriptedScenario, TWO_TOOLS_WRITTEN } from './scripted-scenarios.ts';
