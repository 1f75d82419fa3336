import type { EventType, SessionEvent } from '@agentwire/contracts';
import { sampleEventPayloads } from '@agentwire/contracts/testing';
import { seededRandom } from '@agentwire/testing';

/** One generated event with the `Aw-Prev-Seq` its publisher would stamp. */
export interface GeneratedEvent {
  readonly event: SessionEvent;
  readonly prev: number;
}

type Step = (turn: number) => { type: EventType; payload: Record<string, unknown> };

const sample = (type: EventType) => sampleEventPayloads[type] as Record<string, unknown>;

/** One turn of a coding agent, touching most of the reducer's handlers (R16.3). */
const TURN: readonly Step[] = [
  (k) => ({
    type: 'turn_started',
    payload: { ...sample('turn_started'), turnNumber: k, input: `task ${k}`, inputId: `in-${k}` },
  }),
  () => ({ type: 'model_request', payload: sample('model_request') }),
  (k) => ({
    type: 'model_complete',
    payload: {
      ...sample('model_complete'),
      usage: { inputTokens: 1000 + k, outputTokens: 50 + (k % 7) },
    },
  }),
  (k) => ({
    type: 'tool_call_scheduled',
    payload: {
      ...sample('tool_call_scheduled'),
      toolCallId: `call-${k}`,
      schedule: { parallelGroups: [[`call-${k}`]], executionOrder: [`call-${k}`] },
    },
  }),
  (k) => ({
    type: 'permission_requested',
    payload: { ...sample('permission_requested'), toolCallId: `call-${k}` },
  }),
  (k) => ({
    type: 'permission_resolved',
    payload: {
      ...sample('permission_resolved'),
      toolCallId: `call-${k}`,
      decision: k % 3 === 0 ? 'deny' : 'allow',
    },
  }),
  (k) => ({
    type: 'tool_call_started',
    payload: { ...sample('tool_call_started'), toolCallId: `call-${k}` },
  }),
  (k) => ({
    type: 'tool_call_result',
    payload: { ...sample('tool_call_result'), toolCallId: `call-${k}` },
  }),
  (k) => ({
    type: k % 2 === 0 ? 'tool_batch_complete' : 'background_task_started',
    payload:
      k % 2 === 0
        ? {
            ...sample('tool_batch_complete'),
            toolCallIds: [`call-${k}`],
            successCount: 1,
            errorCount: 0,
          }
        : { ...sample('background_task_started'), taskId: `task-${k}` },
  }),
  (k) => ({
    type: 'turn_steer_queued',
    payload: { ...sample('turn_steer_queued'), pendingInputId: `in-${k + 1}`, input: `next ${k}` },
  }),
  (k) => ({
    type: k % 5 === 4 ? 'session_mode_changed' : 'checkpoint_created',
    payload:
      k % 5 === 4
        ? sample('session_mode_changed')
        : { ...sample('checkpoint_created'), checkpointId: `cp-${k}` },
  }),
  (k) =>
    k % 4 === 3
      ? { type: 'turn_error', payload: sample('turn_error') }
      : { type: 'turn_complete', payload: { ...sample('turn_complete'), tokenCount: 100 + k } },
];

/**
 * A session's non-transient events as a runtime would publish them (R2.3, R3.3): numbered
 * from 1 with holes where transient events took a number, each with its `Aw-Prev-Seq`.
 * Deterministic for a given seed; every event parses against its schema.
 */
export function generateSessionEvents(
  sessionId: string,
  count: number,
  seed: number,
  startAt = 1_700_000_000_000,
): GeneratedEvent[] {
  const random = seededRandom(seed);
  const out: GeneratedEvent[] = [];
  let seq = 0;
  for (let i = 0; i < count; i++) {
    const prev = seq;
    seq += random() < 0.3 ? 1 + Math.floor(random() * 4) : 1;
    const turn = Math.floor(i / TURN.length) + 1;
    const step = TURN[i % TURN.length];
    if (step === undefined) throw new Error('unreachable');
    const { type, payload } = step(turn);
    const event = {
      id: `${sessionId}-e${seq}`,
      sessionId,
      turnId: `t${turn}`,
      type,
      timestamp: startAt + seq * 10,
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      sequenceNumber: seq,
      payload,
    } as SessionEvent;
    out.push({ event, prev });
  }
  return out;
}
