export { cleanTitle } from './clean-title.ts';
export { firstInputTitle } from './first-input-title.ts';
export { hydrateTranscript, type TranscriptEntry, transcriptView } from './hydration.ts';
export {
  applyLedgerOperation,
  type LedgerOperation,
  type LedgerStatus,
  ledgerOperationOfDiscard,
} from './ledger-state.ts';
export { chainDigest, ModelRequestChain, ModelRequestChainError } from './model-request-chain.ts';
export { initialProjection, rebuildProjection, reduce } from './projection/reduce.ts';
export {
  type EvictionReason,
  isEvictable,
  planResidency,
  type ResidentSessionFacts,
} from './residency-decision.ts';
export { type ResidencyOptions, resolveResidencyOptions } from './residency-options.ts';
export { activeChain, type TreeRow, treeLeaf, treeParents } from './session-tree.ts';
export { shouldGenerateTitle, type TitleGenerationConfig } from './should-generate-title.ts';
export {
  syntheticAnchorOrigin,
  syntheticNotice,
  syntheticNoticeSemantics,
} from './synthetic-notice.ts';
export { decideTitleWriteBack, replaceableTitleSources } from './title-write-back.ts';
