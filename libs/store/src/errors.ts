/** What kind of failure a Postgres (or `pg` driver) error is, decided once at the boundary. */
export type PgErrorKind =
  | 'connection'
  | 'serialization'
  | 'deadlock'
  | 'constraint'
  | 'bad_data'
  | 'unknown';

/** The classification of one error: a consumer acks, naks or dead-letters from `retryable`. */
export interface PgErrorClass {
  readonly retryable: boolean;
  readonly kind: PgErrorKind;
  /** The SQLSTATE or Node error code, when there is one. */
  readonly code?: string;
}

/** SQLSTATEs outside class 08 that also mean "the connection is gone, try again". */
const CONNECTION_SQLSTATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
]);

/** Node-level socket error codes: the server was unreachable or dropped us. */
const NODE_CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Messages `pg` uses for connection loss without a code. */
const CONNECTION_MESSAGES = [
  'connection terminated',
  'connection ended',
  'client has encountered a connection error',
  'timeout exceeded when trying to connect',
  'cannot use a pool after calling end',
  'client was closed and is not queryable',
];

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null) {
    const message = (err as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return String(err);
}

function classifyCode(code: string): PgErrorClass | undefined {
  if (NODE_CONNECTION_CODES.has(code)) return { retryable: true, kind: 'connection', code };
  if (code.length !== 5) return undefined;
  if (code.startsWith('08') || CONNECTION_SQLSTATES.has(code)) {
    return { retryable: true, kind: 'connection', code };
  }
  if (code === '40001') return { retryable: true, kind: 'serialization', code };
  if (code === '40P01') return { retryable: true, kind: 'deadlock', code };
  if (code.startsWith('23')) return { retryable: false, kind: 'constraint', code };
  if (code.startsWith('22')) return { retryable: false, kind: 'bad_data', code };
  return { retryable: false, kind: 'unknown', code };
}

/**
 * Classifies an error thrown by `pg` or kysely (STYLE.md "Outcomes and errors"): SQLSTATE
 * class `08` and `57P01`-`57P03` (and Node socket errors such as `ECONNREFUSED`, or `pg`'s
 * "Connection terminated") are `connection` and retryable; `40001` serialization and
 * `40P01` deadlock are retryable; class `23` is `constraint` and class `22` is `bad_data`,
 * both not retryable; anything else is `unknown`, not retryable. A {@link StoreError}
 * keeps its own classification; an `AggregateError` (a connect attempt over several
 * addresses) is classified by its first classifiable member; `cause` chains are followed.
 */
export function classifyPgError(err: unknown): PgErrorClass {
  return classifyDepth(err, 0);
}

function classifyDepth(err: unknown, depth: number): PgErrorClass {
  if (err instanceof StoreError) {
    return err.code === undefined
      ? { retryable: err.retryable, kind: err.kind }
      : { retryable: err.retryable, kind: err.kind, code: err.code };
  }
  const code = codeOf(err);
  const byCode = code === undefined ? undefined : classifyCode(code);
  if (byCode !== undefined && byCode.kind !== 'unknown') return byCode;
  const message = messageOf(err).toLowerCase();
  if (CONNECTION_MESSAGES.some((m) => message.includes(m))) {
    return code === undefined
      ? { retryable: true, kind: 'connection' }
      : { retryable: true, kind: 'connection', code };
  }
  if (depth < 4 && typeof err === 'object' && err !== null) {
    const inner = err instanceof AggregateError ? err.errors : [(err as { cause?: unknown }).cause];
    for (const e of inner) {
      if (e === undefined || e === null) continue;
      const c = classifyDepth(e, depth + 1);
      if (c.kind !== 'unknown') return c;
    }
  }
  return byCode ?? { retryable: false, kind: 'unknown' };
}

/**
 * The store's exception: a Postgres failure, classified once (`kind`, `retryable`), with
 * the original error as `cause`. `code` is the SQLSTATE or Node error code when known.
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly code: string | undefined;
  readonly kind: PgErrorKind;
  readonly retryable: boolean;

  constructor(message: string, options: { cause?: unknown; classification?: PgErrorClass } = {}) {
    super(message, { cause: options.cause });
    const c = options.classification ?? classifyPgError(options.cause);
    this.code = c.code;
    this.kind = c.kind;
    this.retryable = c.retryable;
  }
}

/**
 * Wraps any error from `pg` or kysely as a {@link StoreError} (an existing `StoreError`
 * passes through), naming the operation that failed.
 */
export function toStoreError(operation: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  return new StoreError(`${operation} failed: ${messageOf(err)}`, { cause: err });
}
