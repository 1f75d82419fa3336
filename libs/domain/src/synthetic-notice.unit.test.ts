import { MessageSemantics, SyntheticSource } from '@agentwire/contracts';
import { describe, expect, it } from 'vitest';
import { syntheticAnchorOrigin, syntheticNoticeSemantics } from './synthetic-notice.ts';

describe('synthetic notices (R8)', () => {
  it('maps every source to its kind, valid semantics, and its anchor origin (R8.3, R8.4)', () => {
    const kinds = Object.fromEntries(
      SyntheticSource.options.map((s) => [s, syntheticNoticeSemantics(s).kind]),
    );
    expect(kinds).toEqual({
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
    });
    for (const s of SyntheticSource.options) {
      expect(MessageSemantics.safeParse(syntheticNoticeSemantics(s, 'user_visible')).success).toBe(
        true,
      );
    }
    expect(SyntheticSource.options.map(syntheticAnchorOrigin)).toEqual([
      'backgroundResult',
      'backgroundResult',
      'backgroundResult',
      'goalContinuation',
      'synthetic',
      'synthetic',
      'synthetic',
      'synthetic',
      'synthetic',
      'synthetic',
      'synthetic',
      'synthetic',
    ]);
  });

  it('follows visibility: model-only is hidden from UI and transcript, user-visible from the model (R8.2)', () => {
    expect(syntheticNoticeSemantics('rewind')).toEqual({
      origin: 'agent_runtime',
      kind: 'rewind_notice',
      uiVisibility: 'hidden',
      providerVisibility: 'visible',
      transcriptVisibility: 'hidden',
    });
    expect(syntheticNoticeSemantics('rewind', 'user_visible')).toMatchObject({
      uiVisibility: 'visible',
      providerVisibility: 'hidden',
      transcriptVisibility: 'visible',
    });
    expect(syntheticNoticeSemantics('shared_context', 'user_visible')).toMatchObject({
      origin: 'import',
      uiVisibility: 'hidden',
      providerVisibility: 'visible',
      transcriptVisibility: 'visible',
    });
  });
});
