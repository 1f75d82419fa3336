import type { EventParseError } from '../event-parse-error.ts';
import { parseSessionEvent } from '../parse-session-event.ts';
import type { SessionEvent } from '../session-event.ts';
import { crc32Hex, utf8Length } from './crc32.ts';
import { EventsFrameData, FragmentFrameData, SnapshotFrameData } from './sse-frame.ts';

/**
 * What went wrong with the frames a {@link FrameReader} was given:
 * - `gap`: a frame starts above the number after the one the reader has (frames were lost);
 * - `malformed_frame`: a frame's data is not what docs/decisions/0200 describes;
 * - `fragment_too_large`: a fragment set would reassemble to more than the reader's cap;
 * - `fragment_out_of_order`: a fragment is not the next one of the set being reassembled;
 * - `fragment_corrupt`: the reassembled data does not match its length or CRC-32.
 */
export type FrameProblemCode =
  | 'gap'
  | 'malformed_frame'
  | 'fragment_too_large'
  | 'fragment_out_of_order'
  | 'fragment_corrupt';

/** One refused frame or fragment set, with the reason. */
export interface FrameProblem {
  readonly code: FrameProblemCode;
  readonly message: string;
}

/** What {@link FrameReader.read} made of one SSE message. */
export type FrameReading =
  /** New events, in order, all above the previous `after`; `invalid` were not events. */
  | {
      readonly kind: 'events';
      readonly fromSeq: number;
      readonly toSeq: number;
      readonly events: readonly SessionEvent[];
      readonly invalid: readonly EventParseError[];
    }
  /** Replace the whole state with `projection`; events follow from `asOfSeq + 1`. */
  | { readonly kind: 'snapshot'; readonly asOfSeq: number; readonly projection: unknown }
  /** A frame at or below what the reader has: ignored. */
  | { readonly kind: 'dropped'; readonly toSeq: number }
  /** A fragment was kept; the frame is not complete yet. */
  | { readonly kind: 'partial'; readonly index: number; readonly count: number }
  /** Reconnect once with `?after=<after>` (first problem in a row). */
  | { readonly kind: 'resync'; readonly after: number; readonly problem: FrameProblem }
  /** Reconnect with `?snapshot=true` (second problem in a row: resyncing did not help). */
  | { readonly kind: 'snapshot_needed'; readonly problem: FrameProblem }
  /** The gateway's `event: error` (the stream ends); reconnect with `?after=<after>` later. */
  | { readonly kind: 'server_error'; readonly code: string; readonly message: string }
  /** A message of another kind (a future frame type): ignored. */
  | { readonly kind: 'ignored'; readonly type: string };

/** Options of {@link FrameReader}. */
export interface FrameReaderOptions {
  /** The last sequence number the client already has (its base); 0 for none. */
  readonly after?: number;
  /** The largest frame a fragment set may reassemble to, bytes (default 64 MiB). */
  readonly maxReassembledBytes?: number;
}

/** The part of a browser `MessageEvent` that the reader needs. */
export interface SseMessage {
  /** The SSE `event:` name: `message` when there is none. */
  readonly type: string;
  /** The frame's data; absent on `EventSource`'s own `error` event. */
  readonly data?: string;
}

interface FragmentSet {
  readonly first: FragmentFrameData;
  readonly chunks: string[];
  length: number;
}

/**
 * Reads the frames of `GET /sessions/:id/events` (R15.2, R15.3, docs/decisions/0200) in a
 * browser or in Node: pure, synchronous, no I/O. Feed it every message of one session, in
 * arrival order, across reconnects:
 *
 * ```ts
 * const reader = new FrameReader({ after: historyAsOfSeq });
 * const open = (query: string) => {
 *   const source = new EventSource(`/sessions/${id}/events?${query}`);
 *   const onFrame = (message: MessageEvent<string>) => {
 *     const r = reader.read(message);
 *     if (r.kind === 'events') apply(r.events);
 *     else if (r.kind === 'snapshot') replaceState(r.projection);
 *     else if (r.kind === 'resync') { source.close(); open(`after=${r.after}`); }
 *     else if (r.kind === 'snapshot_needed') { source.close(); open('snapshot=true'); }
 *   };
 *   for (const type of ['message', 'snapshot', 'fragment', 'error']) source.addEventListener(type, onFrame);
 * };
 * open(`after=${reader.after}`);
 * ```
 *
 * `after` only moves forward, by events and snapshot frames. A frame whose `toSeq` is at or
 * below `after` is `dropped`; one that starts above `after + 1` is a gap. The first problem
 * (a gap, or a refused frame or fragment set) asks for one resync from `after`; a second
 * before any frame was applied asks for a snapshot. Fragments are reassembled in order up to
 * `maxReassembledBytes`, checked by length and CRC-32; a set that is oversized, out of order
 * or corrupt is refused as a whole. A browser's own reconnect (`Last-Event-ID`) needs
 * nothing: frames it sees again are dropped.
 */
export class FrameReader {
  #after: number;
  readonly #maxReassembledBytes: number;
  #problems = 0;
  #fragments: FragmentSet | undefined;

  constructor(options: FrameReaderOptions = {}) {
    this.#after = options.after ?? 0;
    this.#maxReassembledBytes = options.maxReassembledBytes ?? 64 * 1024 * 1024;
  }

  /** The last sequence number applied: the base to reconnect with. */
  get after(): number {
    return this.#after;
  }

  /**
   * Reads one SSE message (a `MessageEvent`, or `{ type, data }`). An `error` event without
   * data is `EventSource`'s own connection error (it reconnects by itself): `ignored`.
   */
  read(message: SseMessage): FrameReading {
    if (typeof message.data !== 'string') return { kind: 'ignored', type: message.type };
    switch (message.type) {
      case 'message':
        this.#fragments = undefined;
        return this.#events(message.data);
      case 'snapshot':
        this.#fragments = undefined;
        return this.#snapshot(message.data);
      case 'fragment':
        return this.#fragment(message.data);
      case 'error':
        return this.#serverError(message.data);
      default:
        return { kind: 'ignored', type: message.type };
    }
  }

  #events(data: string): FrameReading {
    const frame = parseJson(EventsFrameData, data);
    if (frame === undefined || frame.fromSeq > frame.toSeq)
      return this.#problem('malformed_frame', 'an events frame without a valid range');
    if (frame.toSeq <= this.#after) return { kind: 'dropped', toSeq: frame.toSeq };
    if (frame.fromSeq > this.#after + 1)
      return this.#problem('gap', `have ${this.#after}, the frame starts at ${frame.fromSeq}`);
    const events: SessionEvent[] = [];
    const invalid: EventParseError[] = [];
    let last = this.#after;
    for (const raw of frame.events) {
      const parsed = parseSessionEvent(raw);
      if (!parsed.ok) {
        invalid.push(parsed.error);
        continue;
      }
      const seq = parsed.event.sequenceNumber;
      if (seq <= this.#after) continue;
      if (seq <= last || seq > frame.toSeq)
        return this.#problem('malformed_frame', `event ${seq} out of order in ${frame.toSeq}`);
      last = seq;
      events.push(parsed.event);
    }
    this.#after = frame.toSeq;
    this.#problems = 0;
    return { kind: 'events', fromSeq: frame.fromSeq, toSeq: frame.toSeq, events, invalid };
  }

  #snapshot(data: string): FrameReading {
    const frame = parseJson(SnapshotFrameData, data);
    if (frame === undefined) return this.#problem('malformed_frame', 'a snapshot without asOfSeq');
    this.#after = frame.asOfSeq;
    this.#problems = 0;
    return { kind: 'snapshot', asOfSeq: frame.asOfSeq, projection: frame.projection };
  }

  #fragment(data: string): FrameReading {
    const piece = parseJson(FragmentFrameData, data);
    if (piece === undefined) return this.#refuse('malformed_frame', 'a malformed fragment');
    // Index 0 starts a set, also over one left unfinished by a reconnect.
    const set = piece.index === 0 ? undefined : this.#fragments;
    if (set === undefined) {
      if (piece.index !== 0)
        return this.#refuse('fragment_out_of_order', `fragment ${piece.index} without 0`);
      if (piece.bytes > this.#maxReassembledBytes)
        return this.#refuse(
          'fragment_too_large',
          `a frame of ${piece.bytes} bytes is over the cap of ${this.#maxReassembledBytes}`,
        );
      this.#fragments = { first: piece, chunks: [], length: 0 };
    } else if (
      piece.index !== set.chunks.length ||
      piece.toSeq !== set.first.toSeq ||
      piece.count !== set.first.count ||
      piece.crc32 !== set.first.crc32 ||
      piece.bytes !== set.first.bytes ||
      piece.frame !== set.first.frame
    ) {
      return this.#refuse(
        'fragment_out_of_order',
        `fragment ${piece.index} of ${piece.toSeq} after ${set.chunks.length - 1} of ${set.first.toSeq}`,
      );
    }
    const current = this.#fragments as FragmentSet;
    current.chunks.push(piece.chunk);
    current.length += utf8Length(piece.chunk);
    if (current.length > current.first.bytes)
      return this.#refuse(
        'fragment_too_large',
        `fragments exceed their ${current.first.bytes} bytes`,
      );
    if (current.chunks.length < current.first.count)
      return { kind: 'partial', index: piece.index, count: current.first.count };
    this.#fragments = undefined;
    const whole = current.chunks.join('');
    if (current.length !== current.first.bytes || crc32Hex(whole) !== current.first.crc32)
      return this.#problem('fragment_corrupt', `frame ${current.first.toSeq} fails its checksum`);
    return current.first.frame === 'events' ? this.#events(whole) : this.#snapshot(whole);
  }

  #serverError(data: string): FrameReading {
    const body = parseJsonValue(data) as { code?: unknown; message?: unknown } | undefined;
    return {
      kind: 'server_error',
      code: typeof body?.code === 'string' ? body.code : 'unknown',
      message: typeof body?.message === 'string' ? body.message : data,
    };
  }

  #refuse(code: FrameProblemCode, message: string): FrameReading {
    this.#fragments = undefined;
    return this.#problem(code, message);
  }

  #problem(code: FrameProblemCode, message: string): FrameReading {
    this.#problems += 1;
    const problem = { code, message };
    return this.#problems === 1
      ? { kind: 'resync', after: this.#after, problem }
      : { kind: 'snapshot_needed', problem };
  }
}

function parseJsonValue(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

function parseJson<T>(
  schema: { safeParse(v: unknown): { success: boolean; data?: T } },
  data: string,
): T | undefined {
  const result = schema.safeParse(parseJsonValue(data));
  return result.success ? result.data : undefined;
}
