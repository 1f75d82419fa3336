/** Payload schemas of the three sub-agent events (SPEC.md R4, R16.2). */
import { z } from 'zod';
import { Count, DurationMs } from './common.ts';

const subagentFields = {
  agentId: z.string(),
  agentType: z.string(),
  childSessionId: z.string(),
  description: z.string(),
  parentToolCallId: z.string(),
};

/** `subagent_spawned` (R16.2); status values are ours. */
export const SubagentSpawnedPayload = z.object({
  ...subagentFields,
  status: z.enum(['running', 'spawn_error']),
});
export type SubagentSpawnedPayload = z.infer<typeof SubagentSpawnedPayload>;

/** `subagent_message` (R16.2): adds `text`. */
export const SubagentMessagePayload = z.object({
  ...subagentFields,
  status: z.enum(['running', 'completed', 'failed', 'cancelled']),
  text: z.string(),
});
export type SubagentMessagePayload = z.infer<typeof SubagentMessagePayload>;

/** Totals of a stopped sub-agent (ours: R16.2 says "totals"). */
const SubagentTotals = z.object({
  tokenCount: Count.optional(),
  toolCallCount: Count.optional(),
  turnCount: Count.optional(),
  durationMs: DurationMs.optional(),
});

/** `subagent_stopped` (R16.2). */
export const SubagentStoppedPayload = z.object({
  ...subagentFields,
  status: z.enum(['completed', 'failed', 'cancelled']),
  totals: SubagentTotals.optional(),
});
export type SubagentStoppedPayload = z.infer<typeof SubagentStoppedPayload>;
