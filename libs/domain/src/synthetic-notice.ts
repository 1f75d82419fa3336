import {
  type AnchorOrigin,
  type MessageKind,
  type MessageSemantics,
  SyntheticSource,
} from '@agentwire/contracts';

/** The twelve sources of synthetic notices (R8.1), as `@agentwire/contracts` defines them. */
export const SYNTHETIC_SOURCES: readonly SyntheticSource[] = SyntheticSource.options;

/** Message kinds a synthetic notice can take (R8.3, a subset of R16.4's kinds). */
export type SyntheticNoticeKind = Extract<
  MessageKind,
  | 'background_notification'
  | 'subagent_notification'
  | 'system_reminder'
  | 'fork_notice'
  | 'rewind_notice'
  | 'todo_reminder'
  | 'shared_context'
  | 'user_prompt'
>;

/** Who a notice is for: by default the model only (R8). */
export type SyntheticVisibility = 'model_only' | 'user_visible';

/** Message semantics of a synthetic notice (R7.8, R16.4): never `debug` in the UI. */
export type SyntheticNoticeSemantics = MessageSemantics & {
  readonly origin: 'agent_runtime' | 'import';
  readonly kind: SyntheticNoticeKind;
  readonly uiVisibility: 'visible' | 'hidden';
};

/** The anchor's input source of a synthetic notice (R8.4). */
export type SyntheticAnchorOrigin = Extract<
  AnchorOrigin,
  'backgroundResult' | 'goalContinuation' | 'synthetic'
>;

const KIND: { readonly [S in SyntheticSource]: SyntheticNoticeKind } = {
  background_task: 'background_notification',
  subagent: 'subagent_notification',
  subagent_message: 'subagent_notification',
  'goal-continuation': 'system_reminder',
  goal_state_change: 'system_reminder',
  plugin_reference: 'system_reminder',
  selection_side_chat: 'system_reminder',
  fork: 'fork_notice',
  rewind: 'rewind_notice',
  todo_reminder: 'todo_reminder',
  shared_context: 'shared_context',
  workflow_launch: 'user_prompt',
};

const sourceSet: ReadonlySet<string> = new Set(SYNTHETIC_SOURCES);

/** True for one of the twelve sources of R8.1. */
export function isSyntheticSource(value: string): value is SyntheticSource {
  return sourceSet.has(value);
}

/** The message kind of a notice from `source` (R8.3). */
export function syntheticNoticeKind(source: SyntheticSource): SyntheticNoticeKind {
  return KIND[source];
}

/**
 * The semantics of a synthetic notice (R8.2, R8.3). Model-only notices are hidden from the
 * UI and the transcript (so hydration never mistakes them for real user turns); user-visible
 * ones are visible in UI and transcript and hidden from the model; origin `agent_runtime`.
 * `shared_context` is fixed: origin `import`, hidden in UI, visible to model and transcript.
 */
export function syntheticNoticeSemantics(
  source: SyntheticSource,
  visibility: SyntheticVisibility = 'model_only',
): SyntheticNoticeSemantics {
  const kind = KIND[source];
  if (source === 'shared_context') {
    return {
      origin: 'import',
      kind,
      uiVisibility: 'hidden',
      providerVisibility: 'visible',
      transcriptVisibility: 'visible',
    };
  }
  const modelOnly = visibility === 'model_only';
  return {
    origin: 'agent_runtime',
    kind,
    uiVisibility: modelOnly ? 'hidden' : 'visible',
    providerVisibility: modelOnly ? 'visible' : 'hidden',
    transcriptVisibility: modelOnly ? 'hidden' : 'visible',
  };
}

/**
 * The anchor's input source (R8.4): background tasks and sub-agents give `backgroundResult`,
 * goal continuation gives `goalContinuation`, everything else `synthetic`.
 */
export function syntheticAnchorOrigin(source: SyntheticSource): SyntheticAnchorOrigin {
  switch (source) {
    case 'background_task':
    case 'subagent':
    case 'subagent_message':
      return 'backgroundResult';
    case 'goal-continuation':
      return 'goalContinuation';
    default:
      return 'synthetic';
  }
}
