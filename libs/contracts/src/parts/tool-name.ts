/** The empty tool name rule of SPEC.md R7.6. */

/**
 * The name stored for a tool call whose name is empty (R7.6).
 *
 * @internal Exported for its tests.
 */
export const EMPTY_TOOL_NAME = 'empty_tool_name';

/** A tool name ready to store, and the original when it had to be replaced. */
export interface NormalizedToolName {
  readonly toolName: string;
  /** The original name, present only when it was replaced (goes into part metadata). */
  readonly originalToolName?: string;
}

/**
 * Applies R7.6: a tool call with an empty name (or only whitespace: ours) is stored as
 * `empty_tool_name`, the original name kept in the part's `metadata.originalToolName`.
 */
export function normalizeToolName(name: string): NormalizedToolName {
  if (name.trim() === '') return { toolName: EMPTY_TOOL_NAME, originalToolName: name };
  return { toolName: name };
}
