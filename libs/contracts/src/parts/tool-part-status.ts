/** The forward-only rule of tool part statuses (SPEC.md R7.5). */
import type { ToolPartStatus } from './tool-part.ts';

/**
 * Rank of each tool part status: pending < running < completed | error. A write may keep
 * or raise the rank, never lower it; the two terminal statuses share the top rank.
 */
export const TOOL_PART_STATUS_RANK = {
  pending: 0,
  running: 1,
  completed: 2,
  error: 2,
} as const satisfies Record<ToolPartStatus, number>;

/** How a write changes a tool part's status. */
export type ToolPartTransition = 'advance' | 'same' | 'regress';

/**
 * Classifies `from -> to` (R7.5): `advance` raises the rank, `same` keeps the status (a
 * repeated or refined write), `regress` lowers the rank or swaps one terminal status for
 * the other. A store applies `advance` and `same` and drops `regress`.
 */
export function classifyToolPartTransition(
  from: ToolPartStatus,
  to: ToolPartStatus,
): ToolPartTransition {
  if (from === to) return 'same';
  return TOOL_PART_STATUS_RANK[to] > TOOL_PART_STATUS_RANK[from] ? 'advance' : 'regress';
}

/** True when a write moving `from -> to` may be applied (R7.5: never back). */
export function isToolPartTransitionAllowed(from: ToolPartStatus, to: ToolPartStatus): boolean {
  return classifyToolPartTransition(from, to) !== 'regress';
}
