import type { RuntimeFailure, RuntimeFailureCode } from '@agentwire/bus';

/** The JSON body of every gateway error: a stable code, a sentence, and optional facts. */
export interface HttpErrorBody {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly detail?: Readonly<Record<string, unknown>>;
  };
}

/**
 * HTTP status of each failure code (docs/decisions/0091). Caller mistakes are 4xx (400
 * invalid input, 404 unknown session, permission request or pending input, 409 a state
 * conflict such as `lease_conflict`, `turn_in_progress` or `expected_turn_mismatch`, 413 too
 * large); backend trouble is 5xx (502 a reply the gateway cannot read, 503 nothing answers or
 * the session broke, 504 timeout, or a write not confirmed in time: its outcome is unknown). Keyed by every {@link RuntimeFailureCode}, so a runtime
 * code added to the contracts without a status here does not compile.
 */
const STATUS_OF_CODE: Readonly<Record<RuntimeFailureCode, number>> = {
  invalid_request: 400,
  unknown_op: 400,
  empty_input: 400,
  unknown_command: 400,
  invalid_command: 400,
  invalid_file_reference: 400,
  unknown_model: 400,
  unknown_checkpoint: 404,
  unknown_message: 404,
  checkpoint_not_on_branch: 409,
  nothing_to_rewind: 409,
  invalid_transcript: 400,
  transcript_too_large: 413,
  unknown_ticket: 404,
  unknown_session: 404,
  not_found: 404,
  unknown_permission_request: 404,
  input_not_pending: 404,
  position_out_of_range: 400,
  session_exists: 409,
  lease_conflict: 409,
  turn_in_progress: 409,
  no_active_turn: 409,
  compaction_in_progress: 409,
  nothing_to_compact: 409,
  no_goal: 409,
  invalid_goal_state: 409,
  session_closed: 409,
  expected_turn_mismatch: 409,
  turn_not_steerable: 409,
  duplicate_input: 409,
  illegal_transition: 409,
  prompt_too_large: 413,
  internal: 500,
  invalid_reply: 502,
  unavailable: 503,
  projection_unavailable: 503,
  session_broken: 503,
  takeover_failed: 503,
  timeout: 504,
  write_not_confirmed: 504,
};

/** The status of a failure code; an unknown code (a newer runtime's) is 502. */
function statusOf(code: string): number {
  return Object.hasOwn(STATUS_OF_CODE, code) ? STATUS_OF_CODE[code as RuntimeFailureCode] : 502;
}

/** A runtime or projection failure as an HTTP status and body. */
export function failureResponse(failure: RuntimeFailure): {
  readonly status: number;
  readonly body: HttpErrorBody;
} {
  const { code, message, detail } = failure.error;
  return {
    status: statusOf(code),
    body: { error: { code, message, ...(detail === undefined ? {} : { detail }) } },
  };
}

/** An error body. */
export function errorBody(
  code: string,
  message: string,
  detail?: Readonly<Record<string, unknown>>,
): HttpErrorBody {
  return { error: { code, message, ...(detail === undefined ? {} : { detail }) } };
}
