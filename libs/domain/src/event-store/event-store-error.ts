/** Stable codes of {@link EventStoreError}. */
export type EventStoreErrorCode = 'AW_EVENT_STORE_ALREADY_NUMBERED';

/**
 * A programming error at the event store boundary (R2.2: only the store numbers events);
 * the event is not appended.
 */
export class EventStoreError extends Error {
  override readonly name = 'EventStoreError';
  readonly code: EventStoreErrorCode;

  constructor(code: EventStoreErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
