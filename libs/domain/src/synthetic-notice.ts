import type {
  MessageSemantics,
  SyntheticSource,
  UserMessage,
  UserMessagePart,
} from '@agentwire/contracts';

/** Who a notice is for: by default the model only (R8). */
type SyntheticVisibility = 'model_only' | 'user_visible';

/** The message kind of each of the twelve sources (R8.3). */
const KIND = {
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
} as const satisfies { readonly [S in SyntheticSource]: MessageSemantics['kind'] };

/**
 * The semantics of a synthetic notice (R8.2, R8.3), the one home of the rule (issue 10):
 * model-only notices are hidden from the UI and the transcript (so hydration never takes
 * them for real user turns); user-visible ones are visible in UI and transcript and hidden
 * from the model; origin `agent_runtime`. `shared_context` is fixed: origin `import`,
 * hidden in UI, visible to model and transcript.
 */
export function syntheticNoticeSemantics(
  source: SyntheticSource,
  visibility: SyntheticVisibility = 'model_only',
): MessageSemantics {
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
export function syntheticAnchorOrigin(
  source: SyntheticSource,
): 'backgroundResult' | 'goalContinuation' | 'synthetic' {
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

/** What {@link syntheticNotice} is given. */
export interface SyntheticNoticeInput {
  readonly source: SyntheticSource;
  readonly id: string;
  readonly partId: string;
  readonly sessionId: string;
  readonly created: number;
  readonly text: string;
  /** The turn it belongs to, when one runs. */
  readonly turnId?: string;
  readonly visibility?: SyntheticVisibility;
}

/**
 * A synthetic notice as it is written (R8, issue 12 item 6): the one function every notice
 * goes through (rewind, fork, a feature's turn, later background results and sub-agent
 * replies): a user-role message flagged `synthetic`, with its source, R8.2's visibility,
 * R8.3's kind and R8.4's anchor, and its text part.
 */
export function syntheticNotice(input: SyntheticNoticeInput): {
  readonly message: UserMessage;
  readonly parts: readonly [UserMessagePart];
} {
  const { source, id, sessionId } = input;
  const visibility = input.visibility ?? 'model_only';
  const message: UserMessage = {
    id,
    sessionId,
    role: 'user',
    time: { created: input.created },
    agent: 'build',
    synthetic: true,
    source,
    visibility: visibility === 'model_only' ? 'model-only' : 'user-visible',
    semantics: syntheticNoticeSemantics(source, visibility),
    anchor: {
      ...(input.turnId === undefined ? {} : { turnId: input.turnId }),
      origin: syntheticAnchorOrigin(source),
    },
  };
  return {
    message,
    parts: [{ id: input.partId, sessionId, messageId: id, type: 'text', text: input.text }],
  };
}
