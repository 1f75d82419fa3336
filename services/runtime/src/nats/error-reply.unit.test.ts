import { RuntimeError } from '@agentwire/engine';
import { StoreError } from '@agentwire/store';
import { NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { errorReply } from './session-ops.ts';

/**
 * A server that is away is `unavailable`, naming which, not `internal`: a frontend retries
 * it (found by a chaos run: a Postgres restart answered prompts `internal: getSession
 * failed: connect ECONNREFUSED`, a broker restart `internal: timeout`).
 */
describe('errorReply', () => {
  it('a Postgres connection that is refused or lost is unavailable (database)', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const reply = errorReply(new StoreError('getSession failed', { cause: refused }));
    expect(reply.error).toMatchObject({ code: 'unavailable', detail: { dependency: 'database' } });
    const shutdown = Object.assign(new Error('the database system is shutting down'), {
      code: '57P03',
    });
    expect(errorReply(shutdown).error.code).toBe('unavailable');
  });

  it('a broker request that timed out or found no responder is unavailable (broker)', () => {
    expect(errorReply(new TimeoutError()).error).toMatchObject({
      code: 'unavailable',
      detail: { dependency: 'broker' },
    });
    const noResponders = new RequestError('no responders: x', {
      cause: new NoRespondersError('x'),
    });
    expect(errorReply(noResponders).error.code).toBe('unavailable');
  });

  it('a constraint violation, a typed error and anything else keep their codes', () => {
    const duplicate = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(errorReply(new StoreError('insert failed', { cause: duplicate })).error.code).toBe(
      'internal',
    );
    expect(errorReply(new RuntimeError('unknown_session', 'no such session')).error.code).toBe(
      'unknown_session',
    );
    expect(errorReply(new Error('boom')).error).toEqual({ code: 'internal', message: 'boom' });
  });
});
