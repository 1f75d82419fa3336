/** The session row (SPEC.md R13.2, R16.4; DESIGN.md `sessions`). */
import { z } from 'zod';
import { EpochMs, TitleSource } from './payloads/common.ts';

/** A persisted session: born lazily on its first persistence (R13.2). */
export const SessionRecord = z.object({
  id: z.string().min(1),
  parentSessionId: z.string().nullable(),
  /** Absent or `interactive` for interactive sessions (R9.5). */
  taskType: z.string().optional(),
  title: z.string(),
  titleSource: TitleSource,
  /** The first input as submitted; R9.9 compares it to detect an edited first question. */
  firstInput: z.string(),
  cwd: z.string(),
  root: z.string(),
  archived: z.boolean(),
  createdAt: EpochMs,
  updatedAt: EpochMs,
});
/** A persisted session. */
export type SessionRecord = z.infer<typeof SessionRecord>;
