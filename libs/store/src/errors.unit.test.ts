import { describe, expect, it } from 'vitest';
import { classifyPgError, StoreError, toStoreError } from './errors.ts';

/** A stand-in for `pg`'s DatabaseError: an Error with a SQLSTATE `code`. */
function pgError(code: string, message = 'boom'): Error {
  return Object.assign(new Error(message), { code });
}

describe('classifyPgError', () => {
  it.each([
    ['08006', 'connection', true],
    ['08001', 'connection', true],
    ['57P01', 'connection', true],
    ['57P02', 'connection', true],
    ['57P03', 'connection', true],
    ['40001', 'serialization', true],
    ['40P01', 'deadlock', true],
    ['23505', 'constraint', false],
    ['23503', 'constraint', false],
    ['22P02', 'bad_data', false],
    ['22P05', 'bad_data', false],
    ['42P01', 'unknown', false],
  ] as const)('SQLSTATE %s is %s (retryable %s)', (code, kind, retryable) => {
    expect(classifyPgError(pgError(code))).toEqual({ kind, retryable, code });
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'])(
    'Node socket error %s is a retryable connection error',
    (code) => {
      expect(classifyPgError(pgError(code))).toEqual({ kind: 'connection', retryable: true, code });
    },
  );

  it('treats pg\'s "Connection terminated" messages as retryable connection errors', () => {
    expect(classifyPgError(new Error('Connection terminated unexpectedly'))).toEqual({
      kind: 'connection',
      retryable: true,
    });
    expect(classifyPgError(new Error('timeout exceeded when trying to connect'))).toMatchObject({
      kind: 'connection',
      retryable: true,
    });
  });

  it('looks inside AggregateError and cause chains', () => {
    const aggregate = new AggregateError([pgError('ECONNREFUSED')], 'connect failed');
    expect(classifyPgError(aggregate)).toMatchObject({ kind: 'connection', retryable: true });
    const wrapped = new Error('outer', { cause: pgError('40P01') });
    expect(classifyPgError(wrapped)).toMatchObject({ kind: 'deadlock', retryable: true });
  });

  it('classifies non-errors and unknown shapes as unknown and not retryable', () => {
    expect(classifyPgError('nope')).toEqual({ kind: 'unknown', retryable: false });
    expect(classifyPgError(null)).toEqual({ kind: 'unknown', retryable: false });
    expect(classifyPgError(new Error('plain'))).toEqual({ kind: 'unknown', retryable: false });
  });
});

describe('StoreError', () => {
  it('carries the classification of its cause and names the operation', () => {
    const cause = pgError('40001', 'could not serialize access');
    const err = toStoreError('saveMessage', cause);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.name).toBe('StoreError');
    expect(err.message).toBe('saveMessage failed: could not serialize access');
    expect(err).toMatchObject({ code: '40001', kind: 'serialization', retryable: true, cause });
  });

  it('passes an existing StoreError through and keeps its classification', () => {
    const inner = toStoreError('a', pgError('23505'));
    expect(toStoreError('b', inner)).toBe(inner);
    expect(classifyPgError(inner)).toEqual({ kind: 'constraint', retryable: false, code: '23505' });
  });
});
