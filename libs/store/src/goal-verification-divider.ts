import type { SessionEventOf } from '@agentwire/contracts';
import type { MessageInput, PartInput } from './messages-repository.ts';

/**
 * The goal-verification divider of a `target_completion_verification` event (R6, R7.7):
 * an assistant message whose semantics say `timeline_event` (visible in the UI and the
 * transcript, never to the model) holding one `timeline` part of kind
 * `goal_verification`. Ids derive from the event id, so a redelivered event rewrites
 * nothing. Everything comes from the event, never from other rows, so the divider is
 * the same whatever order the writes arrive in.
 */
export function goalVerificationDivider(event: SessionEventOf<'target_completion_verification'>): {
  message: MessageInput;
  part: PartInput;
} {
  const { payload } = event;
  const messageId = `${event.id}-divider`;
  const partId = `${event.id}-divider-part`;
  const message = {
    id: messageId,
    sessionId: event.sessionId,
    role: 'assistant',
    time: { created: event.timestamp, completed: event.timestamp },
    parentId: '',
    providerId: 'agentwire',
    modelId: 'timeline',
    mode: 'timeline',
    agent: 'runtime',
    path: { cwd: '', root: '' },
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    semantics: {
      origin: 'agent_runtime',
      kind: 'timeline_event',
      uiVisibility: 'visible',
      providerVisibility: 'hidden',
      transcriptVisibility: 'visible',
    },
    anchor: event.turnId === null ? {} : { turnId: event.turnId },
  };
  const part = {
    id: partId,
    sessionId: event.sessionId,
    messageId,
    type: 'timeline',
    kind: 'goal_verification',
    title: `Goal verification ${payload.status}`,
    time: { created: event.timestamp },
    targetId: payload.targetId,
    verificationId: payload.verificationId,
    status: payload.status,
    ...(payload.verification === undefined
      ? {}
      : { passed: payload.verification.passed, reason: payload.verification.reason }),
  };
  return {
    message: {
      id: messageId,
      sessionId: event.sessionId,
      role: 'assistant',
      data: message,
      version: 0,
      createdAt: event.timestamp,
    },
    part: {
      id: partId,
      messageId,
      sessionId: event.sessionId,
      type: 'timeline',
      data: part,
      version: 0,
    },
  };
}
