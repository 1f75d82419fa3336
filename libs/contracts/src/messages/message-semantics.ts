/** Message semantics and anchors (SPEC.md R7.8, R16.4, R8.2-R8.4). */
import { z } from 'zod';

/** Who produced a message (R16.4). */
const MessageOrigin = z.enum(['real_user', 'agent_runtime', 'system', 'migration', 'import']);

/** What a message is (R16.4); synthetic notices map onto these kinds by R8.3. */
const MessageKind = z.enum([
  'user_prompt',
  'slash_command',
  'system_reminder',
  'background_notification',
  'subagent_notification',
  'todo_reminder',
  'rewind_notice',
  'fork_notice',
  'timeline_event',
  'compact_summary',
  'shared_context',
  'assistant_response',
]);

/** Visibility in the UI (R16.4): `debug` shows only in debug views. */
const UiVisibility = z.enum(['visible', 'hidden', 'debug']);

/** Visibility to the model or in the transcript (R16.4). */
const Visibility = z.enum(['visible', 'hidden']);

/**
 * A message's semantics (R7.8): origin, kind, and separate visibility for the UI, the
 * model (provider) and the transcript.
 */
export const MessageSemantics = z.object({
  origin: MessageOrigin,
  kind: MessageKind,
  uiVisibility: UiVisibility,
  providerVisibility: Visibility,
  transcriptVisibility: Visibility,
});
/** A message's semantics (R7.8). */
export type MessageSemantics = z.infer<typeof MessageSemantics>;

/** Where an input came from, for projections (R16.4 anchor `origin`, R8.4). */
const AnchorOrigin = z.enum([
  'realUser',
  'backgroundResult',
  'goalContinuation',
  'mailbox',
  'synthetic',
]);

/**
 * A message's anchor for projections (R7.8, R16.4). Every field is optional and the shape
 * is extended additively only, so rows written before a field existed still read.
 */
export const MessageAnchor = z.object({
  turnId: z.string().optional(),
  origin: AnchorOrigin.optional(),
  sourceCommandId: z.string().optional(),
});
/** A message's anchor (R7.8). */
export type MessageAnchor = z.infer<typeof MessageAnchor>;
