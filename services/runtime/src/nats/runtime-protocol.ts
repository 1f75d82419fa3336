/**
 * The runtime's request/reply protocol now lives in `@agentwire/contracts`
 * (`runtime-protocol.ts`), shared with the gateway and the CLI; re-exported here under the
 * same names for the runtime's own modules.
 */
export {
  AnswerPermissionRequest,
  EmptyRequest,
  ErrorReply,
  isRuntimeOp,
  OpenRequest,
  PromptRequest,
  RenameRequest,
  RUNTIME_OPS,
  type RuntimeOp,
} from '@agentwire/contracts';
