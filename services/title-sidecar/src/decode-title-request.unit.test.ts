import { describe, expect, it } from 'vitest';
import { decodeTitleRequest } from './decode-title-request.ts';

const bytes = (value: unknown) =>
  new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
const decode = (data: Uint8Array, maxBytes = 4096) => decodeTitleRequest(data, { maxBytes });

describe('decodeTitleRequest', () => {
  it('accepts a valid request', () => {
    const decoded = decode(
      bytes({
        sessionId: 's-1',
        input: 'Fix the flaky login test',
        modelSelection: { providerId: 'scripted', modelId: 'm' },
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      }),
    );
    expect(decoded.ok).toBe(true);
    if (decoded.ok) expect(decoded.request.modelSelection?.modelId).toBe('m');
  });

  it('refuses an oversized body unread', () => {
    const decoded = decode(bytes({ sessionId: 's-1', input: 'x'.repeat(5000) }));
    expect(decoded).toMatchObject({
      ok: false,
      error: { code: 'payload_too_large', retryable: false },
    });
    if (!decoded.ok) expect(decoded.error.message).toContain('4096');
  });

  it('refuses malformed JSON and invalid UTF-8', () => {
    expect(decode(bytes('{"sessionId":'))).toMatchObject({
      ok: false,
      error: { code: 'invalid_json' },
    });
    expect(decode(new Uint8Array([0x7b, 0xff, 0x7d]))).toMatchObject({
      ok: false,
      error: { code: 'invalid_json' },
    });
  });

  it('names every failing field, and echoes the ids it could read', () => {
    const decoded = decode(
      bytes({
        sessionId: 'bad id!',
        input: '   ',
        requestId: 'r-9',
        modelSelection: { providerId: 1 },
      }),
    );
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.error.code).toBe('invalid_request');
    expect(decoded.error.issues?.map((i) => i.path).sort()).toEqual([
      'input',
      'modelSelection.modelId',
      'modelSelection.providerId',
      'sessionId',
    ]);
    expect(decoded.error.message).toContain('sessionId:');
    expect(decoded.sessionId).toBe('bad id!');
    expect(decoded.requestId).toBe('r-9');
  });

  it('refuses a body that is not an object', () => {
    expect(decode(bytes([1, 2]))).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', issues: [{ path: '(body)' }] },
    });
  });
});
