/** The union of the thirteen part types (SPEC.md R7.2). */
import { z } from 'zod';
import {
  AgentPart,
  CompactionPart,
  FilePart,
  PatchPart,
  ReasoningPart,
  RetryPart,
  SnapshotPart,
  StepFinishPart,
  StepStartPart,
  SubtaskPart,
  TextPart,
} from './parts.ts';
import { TimelinePart } from './timeline-part.ts';
import { ToolPart } from './tool-part.ts';

/**
 * The thirteen part types of R7.2: OpenCode's twelve plus `timeline`.
 *
 * @internal Exported for its tests.
 */
export const PART_TYPES = [
  'text',
  'reasoning',
  'file',
  'tool',
  'step-start',
  'step-finish',
  'snapshot',
  'patch',
  'agent',
  'retry',
  'compaction',
  'subtask',
  'timeline',
] as const satisfies readonly Part['type'][];
/** One of the thirteen part types. */
export type PartType = (typeof PART_TYPES)[number];

/** Any part, discriminated on `type` (R7.2). */
export const Part = z.discriminatedUnion('type', [
  TextPart,
  ReasoningPart,
  FilePart,
  ToolPart,
  StepStartPart,
  StepFinishPart,
  SnapshotPart,
  PatchPart,
  AgentPart,
  RetryPart,
  CompactionPart,
  SubtaskPart,
  TimelinePart,
]);
export type Part = z.infer<typeof Part>;

/** The part of type `T`. */
export type PartOf<T extends PartType> = Extract<Part, { type: T }>;
