/**
 * The phases of `appendEvent` (R5) the runtime runs, naming where a failure happened (R5.4);
 * R5's `session_event.persist_durable` is the persistence worker's (docs/decisions/0154).
 */
export type AppendPhase =
  | 'event_store.append'
  | 'session_event.record_usage'
  | 'session_event.notify_sinks';

/**
 * Thrown by `appendEvent` when step 1 fails. `code` is `fenced` when the broker rejected the
 * write because another runtime owns the session (R13.1), `publish_failed` when it is not
 * known whether the event was stored: in both the session can append no more. `refused`:
 * the event was refused for good and not stored (too large, a stream limit); its number
 * was withdrawn, the session goes on, and the turn that emitted it ends as `turn_error`
 * (docs/decisions/0160). `eventType` names the event that failed.
 */
export class AppendError extends Error {
  override readonly name = 'AppendError';
  readonly phase: AppendPhase;
  readonly code: 'fenced' | 'publish_failed' | 'session_broken' | 'refused';
  readonly eventType: string | undefined;

  constructor(
    phase: AppendPhase,
    code: AppendError['code'],
    message: string,
    options?: ErrorOptions & { readonly eventType?: string },
  ) {
    super(`${phase}: ${message}`, options);
    this.phase = phase;
    this.code = code;
    this.eventType = options?.eventType;
  }
}
