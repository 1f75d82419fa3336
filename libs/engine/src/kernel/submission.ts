/** What a submission is answered with, and how it is given (R12.4, R14.3, R14.4). */
import type { SteerDiscardReason, SteerRejectReason } from '@agentwire/contracts';
import type { RequestedDelivery } from './admission.ts';
import type { InputFile } from './feature.ts';
import type { SessionCommandAction } from './input-queue.ts';
import type { TurnOutcome } from './turn-runner.ts';

/** A running or finished turn as seen by the caller. */
export interface TurnTicket {
  readonly turnId: string;
  readonly done: Promise<TurnOutcome>;
}

/** Options of `InputDispatcher.submit` (and `RuntimeSession.submit`). */
export interface SubmitOptions {
  /** The input's command id (= ledger id, R14.1); generated when absent. */
  readonly inputId?: string | undefined;
  /** How to deliver it while a turn runs; `queue` by default. */
  readonly delivery?: RequestedDelivery | undefined;
  /** The turn the submitter saw running; another one means `expected_turn_mismatch`. */
  readonly expectedTurnId?: string | undefined;
  /** The files its `@file` references named (R7.3), read at normalisation. */
  readonly files?: readonly InputFile[] | undefined;
  /** A session-level command while the session is busy: always queued (0238). */
  readonly command?: SessionCommandAction | undefined;
}

/** Where a queued or guided input ended up (R14.3). */
export type InputSettlement =
  | { readonly kind: 'started'; readonly turnId: string; readonly done: Promise<TurnOutcome> }
  | { readonly kind: 'drained'; readonly turnId: string; readonly messageId: string }
  | { readonly kind: 'discarded'; readonly reason: SteerDiscardReason }
  | { readonly kind: 'abandoned' };

/** The answer to a submission (R12.4 "accepted", R14.4). */
export type Admission =
  | {
      readonly ok: true;
      readonly inputId: string;
      readonly delivery: 'startNow';
      readonly turnId: string;
      readonly done: Promise<TurnOutcome>;
      /**
       * Settles once the admission (`turn_steer_queued`) is stored, or rejects when it
       * cannot be (the lease was lost, the session broke): the submission is accepted only
       * then (R12.4, R14.3). The turn runs meanwhile.
       */
      readonly stored: Promise<unknown>;
    }
  | {
      readonly ok: true;
      readonly inputId: string;
      readonly delivery: 'queue' | 'guide';
      readonly targetTurnId: string | null;
      readonly queueLength: number;
      readonly settled: Promise<InputSettlement>;
    }
  | {
      /** A slash command run directly (R12.1): nothing was admitted or sent to the model. */
      readonly ok: true;
      readonly inputId: string;
      readonly delivery: 'command';
      readonly command: string;
      readonly result: Readonly<Record<string, unknown>>;
    }
  | { readonly ok: false; readonly inputId: string; readonly reason: SteerRejectReason };

/** What the stream says of an input admitted before this load: its turn, if it got one. */
export interface EarlierInput {
  readonly turnId?: string | undefined;
}
