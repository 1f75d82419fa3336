import { describe, expect, it } from 'vitest';
import { RuntimeConfig } from './config.ts';
import { EventBoundError, eventBound, HEADER_ROOM_BYTES } from './event-bound.ts';

describe('the bound on every message (issue 18, 0162)', () => {
  it('defaults to 256 KiB and fits under the default 1 MB max_payload', () => {
    const config = RuntimeConfig.parse({ AW_WORKSPACE_ROOT: '/tmp' });
    expect(config.AW_MAX_EVENT_BYTES).toBe(256 * 1024);
    expect(eventBound(config.AW_MAX_EVENT_BYTES, 1024 * 1024)).toBe(256 * 1024);
  });

  it('refuses a bound that leaves no room for headers under the server max_payload, naming both', () => {
    const max = 64 * 1024;
    expect(eventBound(max - HEADER_ROOM_BYTES, max)).toBe(max - HEADER_ROOM_BYTES);
    const error = (() => {
      try {
        eventBound(max - HEADER_ROOM_BYTES + 1, max);
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(EventBoundError);
    expect(error).toMatchObject({ code: 'event_bound_too_large' });
    expect(String((error as Error).message)).toContain('max_payload (65536)');
  });
});
