import { AssistantMessage, TimelinePart } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { describe, expect, it } from 'vitest';
import { goalVerificationDivider } from './goal-verification-divider.ts';

describe('goalVerificationDivider (R6, R7.7)', () => {
  it('builds a timeline_event message and a goal_verification part that pass the contracts', () => {
    const e = sampleSessionEvent('target_completion_verification', {
      id: 'ev-9',
      sequenceNumber: 9,
    });
    const { message, part } = goalVerificationDivider(e);
    const parsedMessage = AssistantMessage.parse(message.data);
    const parsedPart = TimelinePart.parse(part.data);
    expect(parsedMessage.semantics).toMatchObject({
      kind: 'timeline_event',
      providerVisibility: 'hidden',
    });
    expect(parsedPart).toMatchObject({
      kind: 'goal_verification',
      messageId: message.id,
      verificationId: e.payload.verificationId,
    });
    expect(goalVerificationDivider(e)).toEqual({ message, part });
  });
});
