/**
 * A seeded workload of durable events and persistence commands, for the worker's tests and
 * the `persistence` bench group: realistic per-session sequences (ensure the session,
 * admit inputs, promote or discard them, assistant messages, tool parts moving forward,
 * checkpoints, rewinds, auto-resolution updates, goal verifications) plus non-durable
 * events the worker must skip. Every item parses with the contracts' parsers. Within a
 * session no two items race for a terminal state, so any delivery order, and any number
 * of repeats, must leave the same rows.
 */
import {
  type EventType,
  type Part,
  type PersistenceCommand,
  parseSessionEventOrThrow,
  type SessionEvent,
} from '@agentwire/contracts';
import {
  parsePersistenceCommandOrThrow,
  SAMPLE_TRACE_ID,
  sampleEventPayloads,
} from '@agentwire/contracts/testing';
import { seededRandom } from '@agentwire/testing';

/** One message of the workload. */
export type WorkItem =
  | { readonly kind: 'event'; readonly event: SessionEvent }
  | { readonly kind: 'command'; readonly command: PersistenceCommand };

/** Options of {@link generateWorkload}. */
export interface WorkloadOptions {
  readonly seed: number;
  /** Total items (events + commands), at least. */
  readonly items: number;
  readonly sessions: number;
  /** Session id prefix, so that several workloads can share a database. */
  readonly sessionPrefix?: string;
  /** Share of non-durable events mixed in (skipped by the worker). Default 0.1. */
  readonly skippedShare?: number;
  /** Bytes of filler text per message, for benches with same-sized rows. Default 0. */
  readonly fillerBytes?: number;
}

const BASE_TIME = 1_760_000_000_000;

class SessionScript {
  readonly items: WorkItem[] = [];
  private seq = 0;
  private turn = 0;
  private readonly sid: string;
  private readonly random: () => number;
  private readonly filler: string;

  constructor(sid: string, random: () => number, filler: string) {
    this.sid = sid;
    this.random = random;
    this.filler = filler;
  }

  private time(): number {
    return BASE_TIME + this.seq * 10;
  }

  event<T extends EventType>(type: T, payload: unknown): void {
    this.seq++;
    const event = parseSessionEventOrThrow({
      id: `${this.sid}-e${this.seq}`,
      sessionId: this.sid,
      turnId: `${this.sid}-t${this.turn}`,
      type,
      timestamp: this.time(),
      traceId: SAMPLE_TRACE_ID,
      sequenceNumber: this.seq,
      payload,
    });
    this.items.push({ kind: 'event', event });
  }

  command(body: Record<string, unknown>): void {
    const commandId = `${this.sid}-c${this.items.length}`;
    const command = parsePersistenceCommandOrThrow({
      commandId,
      sessionId: this.sid,
      issuedAt: this.time(),
      ...body,
    });
    this.items.push({ kind: 'command', command });
  }

  start(): void {
    this.command({
      kind: 'ensure_session',
      session: {
        parentSessionId: null,
        title: 'Untitled',
        titleSource: 'default',
        firstInput: 'fix the flaky test',
        cwd: '/repo',
        root: '/repo',
        createdAt: BASE_TIME,
      },
    });
  }

  turnOnce(skippedShare: number): void {
    this.turn++;
    const t = this.turn;
    const sid = this.sid;
    const input = `input ${t} ${this.filler}`;
    const inputId = `${sid}-in${t}`;
    if (this.random() < skippedShare) this.event('turn_started', { turnNumber: t, input, inputId });
    this.event('turn_steer_queued', {
      ...sampleEventPayloads.turn_steer_queued,
      pendingInputId: inputId,
      input,
      inputPreview: input.slice(0, 20),
      inputSize: input.length,
      delivery: 'guide',
    });
    if (this.random() < 0.4) {
      this.event('turn_steer_delivery_changed', {
        pendingInputId: inputId,
        requestedDelivery: 'guide',
        admittedDelivery: 'queue',
        fallbackReasonCode: 'turn_not_steerable',
      });
    }
    const userId = `${sid}-u${t}`;
    if (this.random() < 0.75) {
      this.command({
        kind: 'save_user_message',
        version: 1,
        message: {
          id: userId,
          sessionId: sid,
          role: 'user',
          time: { created: this.time() },
          agent: 'build',
        },
        parts: [
          { id: `${userId}-p0`, sessionId: sid, messageId: userId, type: 'text', text: input },
        ],
        promoteInputId: inputId,
        // The session's latest number at promotion (the contract), which may be the
        // delivery change just above: that change preceded the promotion and applies.
        promotedSequenceNumber: this.seq,
      });
      if (this.random() < 0.3)
        this.event('turn_steer_discarded', { pendingInputId: inputId, reason: 'promoted' });
    } else {
      this.event('turn_steer_discarded', {
        pendingInputId: inputId,
        reason: this.random() < 0.5 ? 'user_removed' : 'turn_cancelled',
      });
      return;
    }
    this.assistantStep(t, userId);
    this.extras(t);
  }

  private assistantStep(t: number, userId: string): void {
    const sid = this.sid;
    const aId = `${sid}-a${t}`;
    const message = (completed?: number) => ({
      id: aId,
      sessionId: sid,
      role: 'assistant',
      time:
        completed === undefined ? { created: this.time() } : { created: this.time(), completed },
      parentId: userId,
      providerId: 'scripted',
      modelId: 'scripted-1',
      mode: 'build',
      agent: 'build',
      path: { cwd: '/repo', root: '/repo' },
      cost: 0,
      tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
    });
    this.command({ kind: 'save_assistant_message', version: 1, message: message() });
    const tool = (status: 'pending' | 'running' | 'error', version: number) => {
      const state =
        status === 'pending'
          ? { status, input: { path: 'a.ts' } }
          : status === 'running'
            ? { status, input: { path: 'a.ts' }, time: { start: this.time() } }
            : {
                status,
                input: { path: 'a.ts' },
                error: 'not found',
                time: { start: this.time(), end: this.time() },
              };
      const part: Part = {
        id: `${aId}-tool`,
        sessionId: sid,
        messageId: aId,
        type: 'tool',
        toolCallId: `${aId}-call`,
        toolName: 'read',
        state,
      } as Part;
      this.command({ kind: 'save_part', version, part });
    };
    tool('pending', 1);
    tool('running', 2);
    tool('error', 3);
    const text: Part = {
      id: `${aId}-text`,
      sessionId: sid,
      messageId: aId,
      type: 'text',
      text: `answer ${t} ${this.filler}`,
    };
    this.command({ kind: 'save_part', version: 1, part: text });
    this.command({ kind: 'save_assistant_message', version: 2, message: message(this.time()) });
  }

  private extras(t: number): void {
    const r = this.random();
    if (r < 0.25) {
      this.event('checkpoint_created', {
        ...sampleEventPayloads.checkpoint_created,
        checkpointId: `${this.sid}-cp${t}`,
      });
    } else if (r < 0.4) {
      this.event('rewind_triggered', {
        ...sampleEventPayloads.rewind_triggered,
        rewindId: `${this.sid}-rw${t}`,
      });
    } else if (r < 0.65) {
      const interactionId = `${this.sid}-ia${t % 3}`;
      this.event('user_input_auto_resolution_updated', {
        interactionId,
        toolCallId: `${this.sid}-call${t}`,
        autoResolution: { state: 'snoozed', startedAt: this.time(), snoozedAt: this.time() + t },
      });
    } else if (r < 0.8) {
      this.event('target_completion_verification', {
        targetId: `${this.sid}-goal`,
        verificationId: `${this.sid}-v${t}`,
        status: 'completed',
        verification: { passed: t % 2 === 0, reason: 'checked' },
      });
    } else {
      this.event('model_request', sampleEventPayloads.model_request);
    }
  }
}

/**
 * Generates a seeded workload of at least `items` messages across `sessions` sessions, in
 * per-session order (the order a runtime would publish them), sessions interleaved.
 */
export function generateWorkload(options: WorkloadOptions): WorkItem[] {
  const random = seededRandom(options.seed);
  const prefix = options.sessionPrefix ?? 'ws';
  const filler = 'x'.repeat(options.fillerBytes ?? 0);
  const scripts = Array.from(
    { length: options.sessions },
    (_, i) => new SessionScript(`${prefix}-${i}`, random, filler),
  );
  for (const s of scripts) s.start();
  let total = scripts.length;
  while (total < options.items) {
    const s = scripts[Math.floor(random() * scripts.length)] as SessionScript;
    const before = s.items.length;
    s.turnOnce(options.skippedShare ?? 0.1);
    total += s.items.length - before;
  }
  // Interleave sessions, keeping each session's order.
  const cursors = scripts.map(() => 0);
  const out: WorkItem[] = [];
  while (out.length < total) {
    const i = Math.floor(random() * scripts.length);
    const s = scripts[i] as SessionScript;
    const c = cursors[i] as number;
    if (c < s.items.length) {
      out.push(s.items[c] as WorkItem);
      cursors[i] = c + 1;
    }
  }
  return out;
}

/**
 * The same items, shuffled within each session (sessions keep their interleaving slots).
 *
 * @internal Exported for its tests.
 */
export function shuffleWithinSessions(items: readonly WorkItem[], seed: number): WorkItem[] {
  const random = seededRandom(seed);
  const bySession = new Map<string, WorkItem[]>();
  for (const item of items) {
    const sid = sessionOf(item);
    const list = bySession.get(sid);
    if (list === undefined) bySession.set(sid, [item]);
    else list.push(item);
  }
  for (const list of bySession.values()) {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [list[i], list[j]] = [list[j] as WorkItem, list[i] as WorkItem];
    }
  }
  const cursors = new Map<string, number>();
  return items.map((item) => {
    const sid = sessionOf(item);
    const c = cursors.get(sid) ?? 0;
    cursors.set(sid, c + 1);
    return (bySession.get(sid) as WorkItem[])[c] as WorkItem;
  });
}

/** The session an item belongs to. */
function sessionOf(item: WorkItem): string {
  return item.kind === 'event' ? item.event.sessionId : item.command.sessionId;
}
