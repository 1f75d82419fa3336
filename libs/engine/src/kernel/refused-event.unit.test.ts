import { describe, expect, it } from 'vitest';
import { createSessionHarness } from '../testing/session-harness.ts';
import { startTurn } from '../testing/start-turn.ts';

/**
 * Issue 18, item 3 (docs/decisions/0160): an event the broker refuses for good (too large,
 * a stream limit) ends its turn as `turn_error`, naming the append phase and the event,
 * with what the turn left open closed; numbering stays gapless and the next prompt runs.
 */
describe('a refused event ends its turn, not the session', () => {
  it('a refused tool_call_result: the call is closed, the turn ends turn_error, the next prompt completes', async () => {
    const h = createSessionHarness({});
    h.publisher.refuse.add('tool_call_result');
    const first = await startTurn(h.session, '[scenario:two_tools] read and write');
    await expect(first.done).rejects.toMatchObject({ code: 'refused' });
    const ended = h.events.find((e) => e.type === 'turn_error' && e.turnId === first.turnId);
    expect(ended?.payload).toMatchObject({
      turnPhase: 'event_store.append',
      error: { type: 'event_refused', code: 'event_refused', detail: 'tool_call_result' },
    });
    if (ended?.type !== 'turn_error') throw new Error('no turn_error');
    expect(ended.payload.error.message).toContain('tool_call_result refused');
    expect(ended.payload.error.message).toContain('max_payload');
    // Both declared calls are closed (read_file's result was refused; write_file never ran).
    const scheduled = h.events.filter((e) => e.type === 'tool_call_scheduled');
    const errors = h.events.filter((e) => e.type === 'tool_call_error');
    expect(errors.map((e) => e.payload.toolCallId).sort()).toEqual(
      scheduled.map((e) => e.payload.toolCallId).sort(),
    );
    expect(h.events.some((e) => e.type === 'tool_batch_complete')).toBe(true);
    // Every answer the history lacks is the error its part carries (R10.4).
    const tools = h.session.history.filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(2);
    expect(tools.every((m) => m.isError === true && m.content.startsWith('event_refused'))).toBe(
      true,
    );

    h.publisher.refuse.clear();
    const second = await startTurn(h.session, '[scenario:streamed_text] hello again');
    await expect(second.done).resolves.toMatchObject({ status: 'complete' });
    const seqs = h.events.map((e) => e.sequenceNumber);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(h.publisher.published.map((p) => p.event.sequenceNumber)).toEqual(seqs);
    expect(h.appender.broken).toBeUndefined();
  });

  it('a refused model_request ends the turn before the model is asked', async () => {
    const h = createSessionHarness({});
    h.publisher.refuse.add('model_request');
    const first = await startTurn(h.session, '[scenario:streamed_text] hi');
    await expect(first.done).rejects.toMatchObject({ code: 'refused', eventType: 'model_request' });
    const types = h.events.filter((e) => e.turnId === first.turnId).map((e) => e.type);
    expect(types).toEqual(['turn_started', 'turn_error']);
    h.publisher.refuse.clear();
    await expect(
      (await startTurn(h.session, '[scenario:streamed_text] again')).done,
    ).resolves.toMatchObject({
      status: 'complete',
    });
  });
});
