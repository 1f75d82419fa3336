import { describe, expect, it } from 'vitest';
import {
  isSyntheticSource,
  SYNTHETIC_SOURCES,
  syntheticAnchorOrigin,
  syntheticNoticeKind,
  syntheticNoticeSemantics,
} from './synthetic-notice.ts';

describe('synthetic notices (R8.1-R8.4)', () => {
  it('given the catalogue, when counted, then there are twelve sources', () => {
    expect(SYNTHETIC_SOURCES).toHaveLength(12);
    expect(isSyntheticSource('rewind')).toBe(true);
    expect(isSyntheticSource('real_user')).toBe(false);
  });

  it.each([
    ['background_task', 'background_notification'],
    ['subagent', 'subagent_notification'],
    ['subagent_message', 'subagent_notification'],
    ['goal-continuation', 'system_reminder'],
    ['goal_state_change', 'system_reminder'],
    ['plugin_reference', 'system_reminder'],
    ['selection_side_chat', 'system_reminder'],
    ['fork', 'fork_notice'],
    ['rewind', 'rewind_notice'],
    ['todo_reminder', 'todo_reminder'],
    ['shared_context', 'shared_context'],
    ['workflow_launch', 'user_prompt'],
  ] as const)('given source %s, when classified, then the kind is %s (R8.3)', (source, kind) => {
    expect(syntheticNoticeKind(source)).toBe(kind);
  });

  it('given a model-only notice, when its semantics are derived, then UI and transcript are hidden', () => {
    expect(syntheticNoticeSemantics('rewind')).toEqual({
      origin: 'agent_runtime',
      kind: 'rewind_notice',
      uiVisibility: 'hidden',
      providerVisibility: 'visible',
      transcriptVisibility: 'hidden',
    });
  });

  it('given a user-visible notice, when its semantics are derived, then the model does not see it', () => {
    expect(syntheticNoticeSemantics('fork', 'user_visible')).toEqual({
      origin: 'agent_runtime',
      kind: 'fork_notice',
      uiVisibility: 'visible',
      providerVisibility: 'hidden',
      transcriptVisibility: 'visible',
    });
  });

  it('given shared context, when its semantics are derived, then it is an import visible to model and transcript', () => {
    for (const visibility of ['model_only', 'user_visible'] as const) {
      expect(syntheticNoticeSemantics('shared_context', visibility)).toEqual({
        origin: 'import',
        kind: 'shared_context',
        uiVisibility: 'hidden',
        providerVisibility: 'visible',
        transcriptVisibility: 'visible',
      });
    }
  });

  it('given each source, when anchored, then background and sub-agents are backgroundResult (R8.4)', () => {
    const origins = Object.fromEntries(SYNTHETIC_SOURCES.map((s) => [s, syntheticAnchorOrigin(s)]));
    expect(origins).toEqual({
      background_task: 'backgroundResult',
      subagent: 'backgroundResult',
      subagent_message: 'backgroundResult',
      'goal-continuation': 'goalContinuation',
      goal_state_change: 'synthetic',
      plugin_reference: 'synthetic',
      selection_side_chat: 'synthetic',
      fork: 'synthetic',
      rewind: 'synthetic',
      todo_reminder: 'synthetic',
      shared_context: 'synthetic',
      workflow_launch: 'synthetic',
    });
  });
});
