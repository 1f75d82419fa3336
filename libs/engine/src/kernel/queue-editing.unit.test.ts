import { waitUntil } from '@agentwire/testing';
import { describe, expect, it } from 'vitest';
import { createSessionHarness } from '../testing/session-harness.ts';

const quickly = { timeoutMs: 2_000, intervalMs: 2 } as const;

async function withQueue() {
  const h = createSessionHarness({});
  const permissions = () =>
    h.events.flatMap((e) =>
      e.type === 'permission_requested' && e.payload.requestId !== undefined
        ? [e.payload.requestId]
        : [],
    );
  await h.session.submit('[scenario:run_command] go');
  await waitUntil(() => permissions().length === 1, quickly);
  for (const id of ['a', 'b', 'c']) await h.session.submit(id, { inputId: id });
  return { ...h, permissions };
}

describe('editing the queue (issue 11 item 6)', () => {
  it('moves an input to a position, the others keeping their order', async () => {
    const { session, events } = await withQueue();
    expect(await session.moveInput('c', 0)).toEqual(['c', 'a', 'b']);
    expect(await session.moveInput('c', 2)).toEqual(['a', 'b', 'c']);
    expect(events.filter((e) => e.type === 'turn_steer_reordered').map((e) => e.payload)).toEqual([
      { orderedPendingInputIds: ['c', 'a', 'b'] },
      { orderedPendingInputIds: ['a', 'b', 'c'] },
    ]);
  });

  it('refuses a position past the last and an input that is not waiting, with nothing emitted', async () => {
    const { session, events } = await withQueue();
    const before = events.length;
    await expect(session.moveInput('a', 3)).rejects.toMatchObject({
      code: 'position_out_of_range',
      detail: { position: 3, size: 3 },
    });
    await expect(session.moveInput('zz', 0)).rejects.toMatchObject({ code: 'input_not_pending' });
    expect(events.length).toBe(before);
    expect(session.pendingInputIds).toEqual(['a', 'b', 'c']);
  });

  it('clears every waiting input (user_cleared); a second clear is a no-op', async () => {
    const { session, events, permissions } = await withQueue();
    expect(await session.clearInputs()).toEqual(['a', 'b', 'c']);
    expect(await session.clearInputs()).toEqual([]);
    expect(events.filter((e) => e.type === 'turn_steer_discarded').map((e) => e.payload)).toEqual([
      { pendingInputId: 'a', reason: 'user_cleared' },
      { pendingInputId: 'b', reason: 'user_cleared' },
      { pendingInputId: 'c', reason: 'user_cleared' },
    ]);
    await expect(session.removeInput('a')).rejects.toMatchObject({ code: 'illegal_transition' });
    session.answerPermission(permissions()[0] ?? '', { decision: 'allow' });
    await waitUntil(() => events.some((e) => e.type === 'turn_complete'), quickly);
    // Nothing cleared runs.
    expect(events.filter((e) => e.type === 'turn_started')).toHaveLength(1);
  });
});

describe('editing a waiting input in place (docs/decisions/0222)', () => {
  it('re-emits turn_steer_queued with the same id; the edited text is what runs', async () => {
    const { session, events, permissions } = await withQueue();
    await session.editInput('b', 'b, edited');
    const again = events.flatMap((e) =>
      e.type === 'turn_steer_queued' && e.payload.pendingInputId === 'b' ? [e.payload.input] : [],
    );
    expect(again).toEqual(['b', 'b, edited']);
    expect(session.pendingInputIds).toEqual(['a', 'b', 'c']);
    await expect(session.editInput('b', '/status')).rejects.toMatchObject({
      code: 'invalid_command',
    });
    await expect(session.editInput('b', '/rename sneaky')).rejects.toMatchObject({
      code: 'invalid_command',
    });
    expect(
      events.some((e) => e.type === 'session_title_updated' && e.payload.source === 'custom'),
    ).toBe(false);
    await expect(session.editInput('b', '  ')).rejects.toMatchObject({ code: 'empty_input' });
    await expect(session.editInput('zz', 'x')).rejects.toMatchObject({ code: 'input_not_pending' });
    session.answerPermission(permissions()[0] ?? '', { decision: 'allow' });
    await waitUntil(() => events.filter((e) => e.type === 'turn_complete').length === 4, quickly);
    expect(session.history.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      '[scenario:run_command] go',
      'a',
      'b, edited',
      'c',
    ]);
  });
});
