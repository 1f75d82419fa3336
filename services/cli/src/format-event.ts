import type { EventPayloadMap, EventType, SessionEvent } from '@agentwire/contracts';

/**
 * Longest summary printed per event line.
 *
 * @internal Exported for its tests.
 */
export const SUMMARY_MAX_CHARS = 100;

type Summaries = { [K in EventType]?: (payload: EventPayloadMap[K]) => string };

/** One-line summaries of the types a terminal reader cares about; others print no summary. */
const SUMMARIES: Summaries = {
  turn_steer_queued: (p) => `queued ${quote(p.inputPreview)}`,
  session_input_promoted: (p) => `input ${p.pendingInputId} -> message ${p.messageId}`,
  session_title_updated: (p) => `title ${quote(p.title)} (${p.source})`,
  turn_started: (p) => `turn ${p.turnNumber}: ${quote(p.input)}`,
  model_request: (p) =>
    `${p.providerId}/${p.modelId} ${p.querySource ?? 'main_turn'}, ${p.messageCount ?? p.messages.length} messages${p.base === undefined ? '' : ` (${p.messages.length} new after #${p.base.sequenceNumber})`}`,
  model_streaming: (p) => (p.delta === '' ? (p.kind ?? '') : quote(p.delta)),
  model_complete: (p) => `${p.stopReason} ${quote(p.content)}`,
  model_error: (p) => p.error.message,
  compact_started: (p) => `${p.trigger} ${p.operationId}`,
  compact_failed: (p) => `${p.trigger}: ${p.reason ?? p.error?.message ?? 'failed'}`,
  compact_boundary: (p) =>
    `${p.trigger}: ${p.preCompactTokenCount} -> ${p.postCompactTokenCount ?? '?'} tokens, ${p.summarizedMessageCount} messages summarised, ${p.keptMessageCount ?? 0} kept`,
  tool_call_scheduled: (p) => `${p.toolName} ${JSON.stringify(p.input)}`,
  tool_call_started: (p) => `${p.toolName ?? p.toolCallId}`,
  tool_call_result: (p) => `${p.result.success ? 'ok' : 'failed'} ${quote(p.result.content)}`,
  tool_call_error: (p) => p.error.message,
  tool_batch_complete: (p) => `${p.successCount} ok, ${p.errorCount} failed`,
  permission_requested: (p) =>
    `${p.toolName} (${p.riskLevel}) request ${p.requestId ?? '?'}: ${p.reason}`,
  // A settled request names its id, so that whoever answers by id sees its question is over.
  permission_resolved: (p) =>
    `${p.decision}${requestOf(p)}${p.reason === undefined ? '' : `: ${p.reason}`}`,
  permission_denied: (p) => `${p.toolName}${requestOf(p)}: ${p.reason}`,
  target_changed: (p) =>
    p.target === null
      ? `${p.action}: no goal`
      : `${p.action}: ${p.target.status} ${quote(p.target.summaryTitle ?? p.target.objective)}, ${p.target.tokensUsed}${p.target.tokenBudget === null ? '' : `/${p.target.tokenBudget}`} tokens`,
  target_completion_verification: (p) =>
    p.verification === undefined
      ? p.status
      : `${p.status}: ${p.verification.passed ? 'met' : 'not met'}, ${p.verification.reason}`,
  turn_complete: (p) => `${p.resultType} ${quote(p.response)}`,
  turn_error: (p) => `${p.turnPhase}: ${p.error.message}`,
};

function requestOf(payload: { readonly requestId?: string | undefined }): string {
  return payload.requestId === undefined ? '' : ` request ${payload.requestId}`;
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/** The summary of an event, cut to {@link SUMMARY_MAX_CHARS}. */
function summarize(event: SessionEvent): string {
  const summary = SUMMARIES[event.type] as ((payload: unknown) => string) | undefined;
  const text = summary === undefined ? '' : summary(event.payload);
  const flat = text.replaceAll(/\s+/g, ' ').trim();
  return flat.length <= SUMMARY_MAX_CHARS ? flat : `${flat.slice(0, SUMMARY_MAX_CHARS - 1)}…`;
}

/** One output line per event: sequence number, type, short summary. */
export function formatEvent(event: SessionEvent): string {
  const summary = summarize(event);
  const head = `${String(event.sequenceNumber).padStart(4)} ${event.type}`;
  return summary === '' ? head : `${head}  ${summary}`;
}
