import type { TimelinePart } from '@agentwire/contracts';
import type { ModelMessage } from '@agentwire/model';
import type { ActionDispatch } from './action-dispatch.ts';
import { AppendError } from './append-error.ts';
import type { InputFile, SyntheticTurn } from './feature.ts';
import type { InputDispatcher } from './input-dispatcher.ts';
import { promoteUserInput } from './input-promotion.ts';
import type { SessionCommandAction } from './input-queue.ts';
import type { LedgerBook } from './ledger-book.ts';
import type { TurnScanner } from './open-turn.ts';
import type { PermissionBroker } from './permission-broker.ts';
import type { RequestChain } from './request-chain.ts';
import { sealFailedTurn } from './seal-failed-turn.ts';
import type { SessionFeatures } from './session-features.ts';
import type { RuntimeSessionOptions } from './session-options.ts';
import type { SessionTitle } from './session-title.ts';
import { writeSyntheticNotice } from './synthetic-notice-write.ts';
import type { TransientEviction } from './transient-eviction.ts';
import { runTurn, type TurnOutcome } from './turn-runner.ts';
import { userContent } from './user-content.ts';

/** What starts a turn. */
export interface TurnStart {
  readonly turnId: string;
  readonly input: string;
  readonly files: readonly InputFile[];
  /** The submission's id (R14.1); none for a turn a feature started. */
  readonly inputId: string | undefined;
  readonly traceId: string;
  /** A feature's own turn (docs/decisions/0231): a synthetic notice, not a submission. */
  readonly synthetic?: SyntheticTurn;
  /** A queued session-level command (0238): its turn runs the command, not the model. */
  readonly command?: SessionCommandAction;
}

/** What a turn's life uses of its session (`RuntimeSession` gives its parts). */
export interface SessionTurnDeps {
  readonly o: RuntimeSessionOptions;
  readonly ledger: LedgerBook;
  readonly inputs: InputDispatcher;
  readonly actions: ActionDispatch;
  readonly titles: SessionTitle;
  readonly eviction: TransientEviction;
  readonly features: SessionFeatures;
  readonly history: ModelMessage[];
  readonly requests: RequestChain;
  readonly permissions: PermissionBroker;
  /** The session's own events, folded: what a failing turn left open. */
  readonly turns: TurnScanner;
  readonly turnCount: () => number;
  /** The turn sealed: count it, and evict its transients later. */
  readonly sealed: (turnId: string) => void;
  /** The session's epoch now (R12.5): bumped by interrupts. */
  readonly epoch: () => number;
  /** The turn's input is prepared: an interrupt ends it from now on. */
  readonly prepared: (turnId: string) => void;
}

/**
 * Flow 1 and the turn's life: admission to the ledger, the row (R13.2), the promoted user
 * message (R7.3), the title job (R9.4), eviction of the previous turn's transient events
 * (R3.4), then the agent loop; a loop that throws after the start is sealed `turn_error`,
 * with what it left open settled first.
 */
export async function runSessionTurn(
  d: SessionTurnDeps,
  spec: TurnStart,
  signal: AbortSignal,
  previous: Promise<unknown> | undefined,
): Promise<TurnOutcome> {
  const { turnId, input, files, inputId, traceId, synthetic } = spec;
  const userMessageId = d.o.ids.newId('msg');
  const titleInput = synthetic?.titleInput ?? input;
  let started = false;
  try {
    await prepare(d, spec, previous, userMessageId);
    if (inputId === undefined) {
      await writeSyntheticNotice(d.o, synthetic, {
        turnId,
        traceId,
        messageId: userMessageId,
      });
    } else {
      await d.actions.committing(inputId, traceId);
      const write = await promoteUserInput(
        { ...d.o, ledger: d.ledger },
        {
          turnId,
          traceId,
          messageId: userMessageId,
          input,
          files,
          inputId,
          ...(spec.command === undefined ? {} : { kind: 'slash_command' as const }),
        },
      );
      // A turn never runs on a user message that did not commit (issue 9).
      if (!write.committed) throw await d.inputs.failStart(inputId, traceId, write);
      d.actions.running(inputId, turnId);
    }
    if (spec.command !== undefined) {
      started = true;
      return await runCommandTurn(d, spec, spec.command, userMessageId);
    }
    d.titles.maybeGenerate(titleInput, userMessageId, d.turnCount());
    await d.eviction.evictNow();
    d.history.push({ role: 'user', content: userContent(input, files) });
    started = true;
    await d.features.set.turnStarted({
      turnId,
      traceId,
      userMessageId,
      now: d.o.clock.now(),
      savePart: (part) =>
        d.o.writer.savePart({ ...part, sessionId: d.o.emitter.sessionId } as TimelinePart, {
          sequence: d.o.emitter.appender.latestSequence,
          traceId,
        }),
    });
    const outcome = await runTurn(
      {
        ...d.o,
        tools: d.features.set.tools(d.o.tools),
        model: d.features.set.model()?.provider ?? d.o.model,
        contextWindow: d.features.set.model()?.contextWindow,
        permissions: d.permissions,
        maxSteps: d.o.maxSteps ?? 8,
        requests: d.requests,
        atStepBoundary: (t, tr) => d.inputs.drainGuided(t, tr),
        decideTool: (tool) => d.features.set.decideTool(tool),
        beforeTool: (call) => d.features.set.beforeTool(call),
        afterTool: (call, output) => d.features.set.afterTool(call, output),
        recoverModelError: (error, turn) => d.features.set.modelErrored(error, turn),
        turnEnding: (turn) => d.features.set.turnEnding(turn),
      },
      {
        turnId,
        traceId,
        turnNumber: d.turnCount(),
        input,
        userMessageId,
        signal,
        inputId,
        inputSource: synthetic?.source,
      },
      d.history,
    );
    d.sealed(turnId);
    return outcome;
  } catch (err) {
    d.o.logger.error({ err, sessionId: d.o.emitter.sessionId, turnId, started }, 'turn stopped');
    if (inputId !== undefined && !started) d.actions.failed(inputId);
    // A broken appender seals nothing; a refused event ends its turn (0160).
    if (started && (!(err instanceof AppendError) || err.code === 'refused')) {
      const open = d.turns.result().open;
      const failed = { turnId, traceId, inputId, err, history: d.history };
      if (await sealFailedTurn(d.o, failed, open)) {
        d.sealed(turnId);
      }
    }
    throw err;
  }
}

/**
 * R12.3 `preparing`, R12.5: waits for the previous turn and the session row; an interrupt
 * meanwhile (the epoch moved on) re-queues the input, which is selected again at once.
 * Every await is checked on waking.
 */
async function prepare(
  d: SessionTurnDeps,
  spec: TurnStart,
  previous: Promise<unknown> | undefined,
  userMessageId: string,
): Promise<void> {
  const { inputId, traceId, input, synthetic } = spec;
  for (;;) {
    const epoch = d.epoch();
    if (inputId !== undefined) d.actions.preparing(inputId);
    await previous?.catch(() => undefined);
    await d.titles.ensurePersisted(synthetic?.titleInput ?? input, traceId, userMessageId);
    if (epoch === d.epoch() || inputId === undefined) break;
    await d.actions.requeue(inputId, traceId);
  }
  d.prepared(spec.turnId);
}

/**
 * A queued session-level command's turn (R12.1, docs/decisions/0238): its command line is
 * committed as a `slash_command` message (the UI shows it, the model does not), then the
 * command runs, between `turn_started` and `turn_complete`, so its ticket is delivered and
 * completed like a prompt's. The model is not asked. A command that fails throws: the turn
 * is sealed `turn_error` with its error.
 */
async function runCommandTurn(
  d: SessionTurnDeps,
  spec: TurnStart,
  command: SessionCommandAction,
  messageId: string,
): Promise<TurnOutcome> {
  const { turnId, traceId, inputId } = spec;
  const started = d.o.clock.now();
  await d.o.emitter.emit('turn_started', turnId, traceId, {
    turnNumber: d.turnCount(),
    input: spec.input,
    messageId,
    ...(inputId === undefined ? {} : { inputId }),
  });
  const result = await d.features.runCommand(command.name, command.args);
  const response = JSON.stringify(result);
  await d.o.emitter.emit('turn_complete', turnId, traceId, {
    response,
    tokenCount: 0,
    toolCallCount: 0,
    duration: d.o.clock.now() - started,
    resultType: 'success',
    ...(inputId === undefined ? {} : { inputId }),
  });
  d.sealed(turnId);
  return { turnId, status: 'complete', response };
}
