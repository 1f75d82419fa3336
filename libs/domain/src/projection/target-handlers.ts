import type { ProjectionHandlers } from './handler-table.ts';

/**
 * Goal handlers (R16.3). `target_changed` stores the target (null when cleared); with
 * action `set` and a target it clears both verification lists. A verification event
 * updates its timeline entry (one per verification id) and, when it carries a verdict,
 * appends it to `targetCompletionVerifications`.
 */
export const targetHandlers: ProjectionHandlers<
  'target_changed' | 'target_completion_verification'
> = {
  target_changed: (p, e) => {
    const { action, target } = e.payload;
    if (action === 'set' && target !== null) {
      return {
        ...p,
        target,
        targetCompletionVerifications: [],
        targetCompletionVerificationTimeline: [],
      };
    }
    return { ...p, target };
  },
  target_completion_verification: (p, e) => {
    const { targetId, verificationId, status, verification } = e.payload;
    const entry = { targetId, status, verificationId, updatedAt: e.timestamp };
    const timeline = p.targetCompletionVerificationTimeline.filter(
      (t) => t.verificationId !== verificationId,
    );
    return {
      ...p,
      targetCompletionVerificationTimeline: [...timeline, entry],
      targetCompletionVerifications:
        verification === undefined
          ? p.targetCompletionVerifications
          : [...p.targetCompletionVerifications, verification],
    };
  },
};
