/** The four phases of `appendEvent` (R5), used to name where a failure happened (R5.4). */
export type AppendPhase =
  | 'event_store.append'
  | 'session_event.persist_durable'
  | 'session_event.record_usage'
  | 'session_event.notify_sinks';

/**
 * Thrown by `appendEvent` when step 1 fails: the event was not published, so nothing
 * later may be either. `code` is `fenced` when the broker rejected the write because
 * another runtime owns the session (R13.1), `publish_failed` otherwise.
 */
export class AppendError extends Error {
  override readonly name = 'AppendError';
  readonly phase: AppendPhase;
  readonly code: 'fenced' | 'publish_failed' | 'session_broken';

  constructor(
    phase: AppendPhase,
    code: AppendError['code'],
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${phase}: ${message}`, options);
    this.phase = phase;
    this.code = code;
  }
}
