/** The event envelope of SPEC.md R2.1 and the typed union over the 79 types (R4). */
import { z } from 'zod';
import type { EventPayload } from './event-payloads.ts';
import type { EventType } from './event-types.ts';

/** Letters, digits, `-` and `_`: safe as one NATS subject token (DESIGN.md). */
const SUBJECT_TOKEN_PATTERN = /^[A-Za-z0-9_-]+$/;

/** A session id: a non-empty subject token (R2.1, DESIGN.md subjects). */
export const SessionId = z
  .string()
  .regex(SUBJECT_TOKEN_PATTERN, 'must be letters, digits, "-" or "_" (a subject token)');
export type SessionId = z.infer<typeof SessionId>;

/** A turn id: a subject token too, since transient events travel on `tx.<turnId>`. */
const TurnId = z
  .string()
  .regex(SUBJECT_TOKEN_PATTERN, 'must be letters, digits, "-" or "_" (a subject token)');

/** A W3C trace id: 32 lowercase hex digits, not all zero. */
export const TraceId = z
  .string()
  .regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hex digits (W3C trace id)')
  .refine((s) => s !== '00000000000000000000000000000000', 'must not be all zeros (W3C)');
export type TraceId = z.infer<typeof TraceId>;

/**
 * The envelope as read from the wire, before the type and payload are checked: the eight
 * fields of R2.1. `sequenceNumber` is 0 until the store assigns it (R2.2).
 */
export const EventEnvelope = z.object({
  id: z.string().min(1),
  sessionId: SessionId,
  /** Null for session-level events. */
  turnId: TurnId.nullable(),
  type: z.string(),
  /** Epoch milliseconds. */
  timestamp: z.number().int().nonnegative(),
  traceId: TraceId,
  sequenceNumber: z.number().int().nonnegative(),
  payload: z.unknown(),
});
/** The envelope before type and payload are checked. */
export type EventEnvelope = z.infer<typeof EventEnvelope>;

/**
 * A session event of type `T` with its payload narrowed (R2.1). Distributive: for a union
 * of types it is the union of their events, so `SessionEventOf<EventType>` is
 * `SessionEvent`.
 */
export type SessionEventOf<T extends EventType> = T extends EventType
  ? {
      id: string;
      sessionId: string;
      /** Null for session-level events. */
      turnId: string | null;
      type: T;
      /** Epoch milliseconds. */
      timestamp: number;
      /** W3C trace id. */
      traceId: string;
      /** 0 until the store assigns it (R2.2). */
      sequenceNumber: number;
      payload: EventPayload<T>;
    }
  : never;

/** Any session event: a union discriminated on `type`, so `payload` narrows (R2.1). */
export type SessionEvent = SessionEventOf<EventType>;
