/** Fields every part shares (OpenCode's part model, camel-cased; R7.2). */
import { z } from 'zod';
import { EpochMs } from '../payloads/common.ts';

/** `id`, `sessionId` and `messageId` of every part. */
export const partBaseFields = {
  id: z.string().min(1),
  sessionId: z.string().min(1),
  messageId: z.string().min(1),
};

/** A start time and an optional end time (epoch ms). */
export const PartTimeSpan = z.object({ start: EpochMs, end: EpochMs.optional() });
/** A start time and an optional end time. */
export type PartTimeSpan = z.infer<typeof PartTimeSpan>;
