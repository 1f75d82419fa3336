export * from './ai-sdk-mapping.ts';
export * from './ai-sdk-provider.ts';
export * from './model-error.ts';
export * from './model-provider.ts';
export * from './scripted-provider.ts';
export * from './scripted-scenarios.ts';
