import {
  BusError,
  type ExpiredBase,
  type ProjectionSnapshotReply,
  type RuntimeFailure,
  type RuntimeResult,
  type SessionFollower,
} from '@agentwire/bus';
import {
  type OpenReply,
  type PromptReply,
  type PromptRequest,
  parseTranscript,
  type SessionCommandReply,
  type SessionEvent,
  type SetQueueModesRequest,
  TRANSCRIPT_MAX_BYTES,
} from '@agentwire/contracts';
import type { GatewayBackend } from '../gateway-port.ts';

/** One recorded call of {@link FakeBackend}. */
export interface BackendCall {
  readonly method: string;
  readonly args: readonly unknown[];
}

/**
 * A follower over a list of events (the backend's, which {@link FakeBackend.publish} grows)
 * that then waits for more until stopped; with `expired`, it yields nothing and throws the
 * bus's `base_expired` error instead.
 */
export class FakeFollower implements SessionFollower {
  readonly #events: readonly SessionEvent[];
  readonly #expired: ExpiredBase | undefined;
  #last: number;
  stopped = false;
  #wake: () => void = () => {};

  constructor(events: readonly SessionEvent[], after: number, expired?: ExpiredBase) {
    this.#events = events;
    this.#last = after;
    this.#expired = expired;
  }

  get lastSequence(): number {
    return this.#last;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SessionEvent> {
    if (this.#expired !== undefined) {
      throw new BusError(`base ${this.#last} expired`, {
        code: 'base_expired',
        expiredBase: this.#expired,
      });
    }
    let index = 0;
    while (!this.stopped) {
      const event = this.#events[index];
      if (event === undefined) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          if (this.stopped) resolve();
        });
        continue;
      }
      index += 1;
      if (event.sequenceNumber <= this.#last) continue;
      this.#last = event.sequenceNumber;
      yield event;
    }
  }

  /** Wakes a follower waiting for more events. */
  poke(): void {
    this.#wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.#wake();
  }
}

/**
 * A {@link GatewayBackend} for `app.inject()` tests: records calls, answers with a queued
 * failure when one is set, else with plausible replies; follows a fixed event list.
 */
export class FakeBackend implements GatewayBackend {
  readonly calls: BackendCall[] = [];
  readonly followers: FakeFollower[] = [];
  events: SessionEvent[] = [];
  knownSessions = new Set<string>(['s1']);
  /** The next call fails with this. */
  failNext: RuntimeFailure | undefined;
  /** While set, a prompt is queued behind this running turn (R14.3) instead of starting one. */
  runningTurn: string | undefined;
  projectionOf: ProjectionSnapshotReply = { ok: true, projection: { title: 'x' }, asOfSeq: 7 };
  /**
   * Events numbered below this are gone from the stream (all fake events are non-transient):
   * a follow from a base below its predecessor reports `base_expired`.
   */
  oldestRetained: number | undefined;

  #answer<T>(method: string, args: unknown[], value: T): Promise<RuntimeResult<T>> {
    this.calls.push({ method, args });
    const failure = this.failNext;
    this.failNext = undefined;
    return Promise.resolve(failure ?? value);
  }

  open(sessionId?: string) {
    const sid = sessionId ?? 'new-session';
    return this.#answer('open', [sessionId], {
      ok: true as const,
      sessionId: sid,
      owner: 'rt1',
      lastSequence: 0,
    });
  }

  prompt(sessionId: string, request: PromptRequest): Promise<RuntimeResult<PromptReply>> {
    if (this.runningTurn !== undefined) {
      return this.#answer<PromptReply>('prompt', [sessionId, request], {
        ok: true,
        sessionId,
        inputId: 'input-2',
        delivery: request.delivery ?? 'queue',
        targetTurnId: this.runningTurn,
        queueLength: 1,
      });
    }
    return this.#answer<PromptReply>('prompt', [sessionId, request], {
      ok: true as const,
      sessionId,
      turnId: 'turn-9',
      ...(request.wait === true ? { status: 'complete' as const, response: 'done' } : {}),
    });
  }

  interrupt(sessionId: string, request: unknown) {
    return this.#answer('interrupt', [sessionId, request], { ok: true as const, turnId: 'turn-9' });
  }

  rename(sessionId: string, title: string) {
    return this.#answer('rename', [sessionId, title], { ok: true as const, title });
  }

  answerPermission(sessionId: string, answer: unknown) {
    return this.#answer('answerPermission', [sessionId, answer], { ok: true as const });
  }

  close(sessionId: string) {
    return this.#answer('close', [sessionId], { ok: true as const });
  }

  removeInput(sessionId: string, inputId: string) {
    return this.#answer('removeInput', [sessionId, inputId], { ok: true as const, inputId });
  }

  reorderInputs(sessionId: string, orderedInputIds: readonly string[]) {
    return this.#answer('reorderInputs', [sessionId, orderedInputIds], {
      ok: true as const,
      order: [...orderedInputIds],
    });
  }

  moveInput(sessionId: string, inputId: string, position: number) {
    return this.#answer('moveInput', [sessionId, inputId, position], {
      ok: true as const,
      order: [inputId],
    });
  }

  awaitTicket(sessionId: string, ticketId: string, until: 'delivered' | 'completed') {
    return this.#answer('awaitTicket', [sessionId, ticketId, until], {
      ok: true as const,
      ticketId,
      state: until,
      timedOut: false,
    });
  }

  setMode(sessionId: string, mode: 'plan' | 'build' | 'edit' | 'yolo' | 'auto') {
    return this.#answer('setMode', [sessionId, mode], {
      ok: true as const,
      mode,
      previousMode: 'build' as const,
      changed: mode !== 'build',
    });
  }

  editInput(sessionId: string, inputId: string, text: string) {
    return this.#answer('editInput', [sessionId, inputId, text], { ok: true as const, inputId });
  }

  clearInputs(sessionId: string) {
    return this.#answer('clearInputs', [sessionId], { ok: true as const, cleared: [] });
  }

  setQueueModes(sessionId: string, modes: SetQueueModesRequest) {
    return this.#answer('setQueueModes', [sessionId, modes], {
      ok: true as const,
      steeringMode: modes.steeringMode ?? ('all' as const),
      followUpMode: modes.followUpMode ?? ('one_at_a_time' as const),
      autoDrain: modes.autoDrain ?? true,
      changed: true,
    });
  }

  rewind(sessionId: string, target?: string) {
    return this.#command('rewind', sessionId, target, () =>
      target === undefined
        ? { checkpoints: [{ checkpointId: 'cp_1', messageId: 'msg_2', fileCount: 2 }] }
        : {
            rewindId: 'rw_1',
            scope: 'both',
            strategy: 'active_chain',
            leafId: 'msg_9',
            ...(target.startsWith('cp') ? { targetCheckpointId: target } : {}),
            restored: ['a.txt'],
            removed: [],
            unrestorable: [],
          },
    );
  }

  tree(sessionId: string, messageId?: string) {
    return this.#command('tree', sessionId, messageId, () =>
      messageId === undefined
        ? {
            leafId: 'msg_9',
            branches: [
              { leafId: 'msg_9', active: true, size: 3, forkedAt: null },
              { leafId: 'msg_5', active: false, size: 5, forkedAt: 'msg_1' },
            ],
          }
        : {
            rewindId: 'rw_2',
            scope: 'conversation',
            strategy: 'active_chain',
            leafId: 'msg_10',
            targetMessageId: messageId,
          },
    );
  }

  fork(sessionId: string, messageId: string) {
    return this.#command('fork', sessionId, messageId, () => ({
      forkedSessionId: 'forked-session',
      owner: 'rt1',
      targetMessageId: messageId,
      messageCount: 4,
    }));
  }

  /**
   * Checks the file as the runtime does (the contracts' `parseTranscript`, with the limits
   * of the runtime's session-import.ts), so a route test sees the runtime's own refusals.
   */
  importSession(transcript: string): Promise<RuntimeResult<OpenReply>> {
    const parsed = parseTranscript(transcript, {
      maxBytes: TRANSCRIPT_MAX_BYTES,
      maxMessages: 10_000,
    });
    const reply: RuntimeResult<OpenReply> = parsed.ok
      ? {
          ok: true,
          sessionId: 'imported-session',
          owner: 'rt1',
          lastSequence: 0,
          imported: parsed.entries.length,
        }
      : {
          ok: false,
          error: {
            code: parsed.error.code,
            message: parsed.error.message,
            detail: { line: parsed.error.line },
          },
        };
    return this.#answer('importSession', [transcript], reply);
  }

  /** A session command's reply: its result at once, or its ticket behind {@link runningTurn}. */
  #command(
    command: 'rewind' | 'tree' | 'fork',
    sessionId: string,
    argument: string | undefined,
    result: () => Record<string, unknown>,
  ): Promise<RuntimeResult<SessionCommandReply>> {
    const args = [sessionId, ...(argument === undefined ? [] : [argument])];
    if (this.runningTurn !== undefined) {
      return this.#answer<SessionCommandReply>(command, args, {
        ok: true,
        sessionId,
        inputId: 'input-3',
        delivery: 'queue',
        targetTurnId: this.runningTurn,
        queueLength: 1,
      });
    }
    return this.#answer<SessionCommandReply>(command, args, {
      ok: true,
      sessionId,
      inputId: 'input-3',
      command,
      result: result(),
    });
  }

  /** Appends `event` to the session's events and wakes the followers (a live event). */
  publish(event: SessionEvent): void {
    this.events.push(event);
    for (const f of this.followers) f.poke();
  }

  projection(sessionId: string) {
    return this.#answer('projection', [sessionId], this.projectionOf);
  }

  /** Forks by their original (`forkOrigin`'s answers). */
  readonly forkOrigins = new Map<string, string>();

  async forkOrigin(sessionId: string): Promise<string | undefined> {
    this.calls.push({ method: 'forkOrigin', args: [sessionId] });
    return this.forkOrigins.get(sessionId);
  }

  async knows(sessionId: string): Promise<boolean> {
    this.calls.push({ method: 'knows', args: [sessionId] });
    return this.knownSessions.has(sessionId);
  }

  follow(sessionId: string, afterSequence: number): SessionFollower {
    this.calls.push({ method: 'follow', args: [sessionId, afterSequence] });
    const oldest = this.oldestRetained;
    const expired =
      oldest !== undefined && afterSequence < oldest - 1
        ? { afterSequence, missingSequence: oldest - 1, firstAvailableSequence: oldest }
        : undefined;
    const follower = new FakeFollower(this.events, afterSequence, expired);
    this.followers.push(follower);
    return follower;
  }
}
