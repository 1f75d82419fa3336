/** User and assistant messages (SPEC.md R7.3, R7.4, R16.4). */
import { z } from 'zod';
import { EpochMs, ErrorPayload, ModelSelection, SyntheticSource } from '../payloads/common.ts';
import { MessageAnchor, MessageSemantics } from './message-semantics.ts';

/**
 * The message before this one on its branch of the session tree (docs/decisions/0239),
 * `null` for the session's first; absent on rows written before the tree, whose parent is
 * the message before them in the transcript's order (R7.8).
 */
const TreeParentId = z.string().min(1).nullable().optional();

/** Who may see a user message's input (R16.2 `inputVisibility`, R16.4 `visibility`). */
const InputVisibility = z.enum(['user-visible', 'model-only']);

/**
 * A user message (R16.4): written at turn start and on guide injection (R7.3), and for
 * synthetic notices with `synthetic: true` and their `source` (R8).
 */
export const UserMessage = z.object({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  role: z.literal('user'),
  time: z.object({ created: EpochMs }),
  /** The agent (profile) the message was addressed to, e.g. `build`. */
  agent: z.string(),
  modelSelection: ModelSelection.optional(),
  synthetic: z.boolean().optional(),
  source: SyntheticSource.optional(),
  visibility: InputVisibility.optional(),
  semantics: MessageSemantics.optional(),
  anchor: MessageAnchor.optional(),
  treeParentId: TreeParentId,
});
export type UserMessage = z.infer<typeof UserMessage>;

/** Token counts of one assistant message (R16.4). */
export const MessageTokens = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  reasoning: z.number().int().nonnegative(),
  cache: z.object({
    read: z.number().int().nonnegative(),
    write: z.number().int().nonnegative(),
  }),
});
/** Token counts of one assistant message. */
export type MessageTokens = z.infer<typeof MessageTokens>;

/**
 * An assistant message (R16.4): one per model step, recording the provider and model that
 * actually produced it, `cwd`, `root` and token usage (R7.4).
 */
export const AssistantMessage = z.object({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  role: z.literal('assistant'),
  time: z.object({ created: EpochMs, completed: EpochMs.optional() }),
  error: ErrorPayload.optional(),
  /** The user message this step answers. */
  parentId: z.string(),
  providerId: z.string(),
  modelId: z.string(),
  mode: z.string(),
  agent: z.string(),
  path: z.object({ cwd: z.string(), root: z.string() }),
  /** Cost in US dollars. */
  cost: z.number().nonnegative(),
  tokens: MessageTokens,
  /** Why the step finished, e.g. `stop`, `tool-calls`. */
  finish: z.string().optional(),
  semantics: MessageSemantics.optional(),
  anchor: MessageAnchor.optional(),
  treeParentId: TreeParentId,
});
export type AssistantMessage = z.infer<typeof AssistantMessage>;

/** A user or an assistant message, discriminated on `role`. */
export const Message = z.discriminatedUnion('role', [UserMessage, AssistantMessage]);
export type Message = z.infer<typeof Message>;
