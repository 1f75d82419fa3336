import { createEvent } from '@agentwire/contracts';
import { describe, expect, it } from 'vitest';
import { InMemorySessionEventStore, rebuildProjection } from './index.ts';

describe('the README example', () => {
  it('given a store, when a turn starts, then the event is numbered 1 and the session runs', async () => {
    const store = new InMemorySessionEventStore({ now: () => Date.now() });
    const stored = await store.append(
      createEvent({
        id: 'evt-1',
        sessionId: 'session-1',
        turnId: 'turn-1',
        type: 'turn_started',
        payload: { turnNumber: 0, input: 'fix the flaky test' },
        timestamp: 1_700_000_000_000,
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      }),
    );
    expect(stored.sequenceNumber).toBe(1);
    const projection = rebuildProjection('session-1', await store.readAll('session-1'));
    expect(projection.status).toBe('running');
  });
});
