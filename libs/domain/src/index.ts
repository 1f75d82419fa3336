export * from './clean-title.ts';
export * from './event-store/event-store-error.ts';
export * from './event-store/in-memory-session-event-store.ts';
export * from './first-input-title.ts';
export * from './hydration.ts';
export * from './ledger-state.ts';
export {
  chainDigest,
  ModelRequestChain,
  ModelRequestChainError,
  type ModelRequestChainFailure,
  type Sha256Hex,
} from './model-request-chain.ts';
export * from './projection/handler-table.ts';
export * from './projection/handlers.ts';
export * from './projection/reduce.ts';
export { updatesContextUsage } from './projection/session-handlers.ts';
export * from './residency-decision.ts';
export * from './residency-options.ts';
export * from './should-generate-title.ts';
export * from './text.ts';
export * from './title-source.ts';
export * from './title-write-back.ts';
