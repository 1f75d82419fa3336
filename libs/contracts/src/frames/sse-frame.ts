import { z } from 'zod';
import { crc32Hex, isLowSurrogate, utf8Length } from './crc32.ts';

/**
 * The gateway's default bound on one SSE frame's `data`, bytes (`AW_SSE_MAX_FRAME_BYTES`);
 * a frame whose data is larger is sent as `event: fragment` frames (R15.3).
 */
export const DEFAULT_MAX_FRAME_BYTES = 256 * 1024;

/** The smallest frame bound the encoder accepts: a fragment's own fields need room. */
export const MIN_MAX_FRAME_BYTES = 1024;

const Seq = z.number().int().nonnegative();

/**
 * `data` of an events frame (unnamed, so `EventSource.onmessage` gets it; `id:` is `toSeq`):
 * the events numbered `fromSeq..toSeq` that the session still holds, in order. `fromSeq` is
 * one above the previous frame's `toSeq` on the same stream (or the base + 1), so ranges
 * are contiguous even where evicted transient events left holes in the numbers (R3.3).
 */
export const EventsFrameData = z.object({
  fromSeq: Seq.min(1),
  toSeq: Seq.min(1),
  events: z.array(z.unknown()),
});
export type EventsFrameData = z.infer<typeof EventsFrameData>;

/** `data` of `event: snapshot` (`id:` is `asOfSeq`): a projection that replaces the state. */
export const SnapshotFrameData = z.object({ projection: z.unknown(), asOfSeq: Seq });
export type SnapshotFrameData = z.infer<typeof SnapshotFrameData>;

/**
 * `data` of `event: fragment` (R15.3): piece `index` of `count` of the data of one frame
 * (`frame`: an events or a snapshot frame) ending at `toSeq`. `bytes` and `crc32` (8 hex
 * digits, {@link crc32Hex}) are of the whole reassembled data. Only the last fragment
 * carries `id:`, so a reconnect mid-set resumes from the frame before.
 */
export const FragmentFrameData = z.object({
  frame: z.enum(['events', 'snapshot']),
  toSeq: Seq,
  index: z.number().int().nonnegative(),
  count: z.number().int().min(2),
  bytes: z.number().int().positive(),
  crc32: z.string().regex(/^[0-9a-f]{8}$/),
  chunk: z.string(),
});
export type FragmentFrameData = z.infer<typeof FragmentFrameData>;

/**
 * The SSE text of one events frame, or of its fragments when its data is over
 * `maxFrameBytes`. `eventsJson` are the events already encoded (`JSON.stringify`), so a
 * caller that encodes an event once can reuse it in many frames.
 */
export function encodeEventsFrame(
  fromSeq: number,
  toSeq: number,
  eventsJson: readonly string[],
  maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES,
): string {
  const data = `{"fromSeq":${fromSeq},"toSeq":${toSeq},"events":[${eventsJson.join(',')}]}`;
  if (utf8Length(data) <= maxFrameBytes) return `id: ${toSeq}\ndata: ${data}\n\n`;
  return encodeFragments('events', toSeq, data, maxFrameBytes);
}

/** The SSE text of a snapshot frame (docs/decisions/0103), fragmented when over the bound. */
export function encodeSnapshotFrame(
  projection: unknown,
  asOfSeq: number,
  maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES,
): string {
  const data = JSON.stringify({ projection, asOfSeq });
  if (utf8Length(data) <= maxFrameBytes)
    return `event: snapshot\nid: ${asOfSeq}\ndata: ${data}\n\n`;
  return encodeFragments('snapshot', asOfSeq, data, maxFrameBytes);
}

/** Room for a fragment's fields besides its chunk (the numbers at their largest). */
const FRAGMENT_OVERHEAD = 200;

function encodeFragments(
  frame: FragmentFrameData['frame'],
  toSeq: number,
  data: string,
  maxFrameBytes: number,
): string {
  if (maxFrameBytes < MIN_MAX_FRAME_BYTES)
    throw new RangeError(`maxFrameBytes must be at least ${MIN_MAX_FRAME_BYTES}`);
  const chunks = splitByEscapedBytes(data, maxFrameBytes - FRAGMENT_OVERHEAD);
  const whole = {
    frame,
    toSeq,
    count: chunks.length,
    bytes: utf8Length(data),
    crc32: crc32Hex(data),
  };
  return chunks
    .map((chunk, index) => {
      const body = JSON.stringify({ ...whole, index, chunk });
      const id = index === chunks.length - 1 ? `id: ${toSeq}\n` : '';
      return `event: fragment\n${id}data: ${body}\n\n`;
    })
    .join('');
}

/**
 * Cuts `text` into pieces whose JSON string encoding takes at most `budget` UTF-8 bytes
 * each, never inside a surrogate pair.
 */
function splitByEscapedBytes(text: string, budget: number): string[] {
  const chunks: string[] = [];
  let start = 0;
  let used = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1));
    const cost = pair ? 4 : escapedCost(c);
    if (used + cost > budget) {
      chunks.push(text.slice(start, i));
      start = i;
      used = 0;
    }
    used += cost;
    i += pair ? 2 : 1;
  }
  chunks.push(text.slice(start));
  return chunks;
}

/** UTF-8 bytes that `JSON.stringify` spends on one UTF-16 code unit inside a string. */
function escapedCost(c: number): number {
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x20) return c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdfff) return 6;
  return 3;
}
