import { isQueuedPromptReply, PromptReply } from '@agentwire/contracts';
import { describe, expect, it } from 'vitest';
import { formatPromptReply } from './format-prompt-reply.ts';

const queued = {
  ok: true as const,
  sessionId: 's1',
  inputId: 'in-2',
  delivery: 'queue' as const,
  targetTurnId: 't1',
  queueLength: 1,
};

describe('formatPromptReply', () => {
  it('prints the started turn, with its outcome under --wait', () => {
    const started = { ok: true as const, sessionId: 's1', turnId: 't1' };
    expect(formatPromptReply(started, false)).toBe('t1');
    expect(formatPromptReply({ ...started, status: 'complete', response: 'done' }, true)).toBe(
      't1 complete done',
    );
  });

  it('parses a queued reply as queued even when it carries the turn it ran in', () => {
    const settled = PromptReply.parse({ ...queued, turnId: 't2', status: 'complete' });
    expect(isQueuedPromptReply(settled)).toBe(true);
    expect(settled).toMatchObject({ inputId: 'in-2', turnId: 't2' });
    expect(
      isQueuedPromptReply(PromptReply.parse({ ok: true, sessionId: 's1', turnId: 't1' })),
    ).toBe(false);
    // A started reply names its input (its ticket, R12.4) and is still not queued.
    const started = PromptReply.parse({
      ok: true,
      sessionId: 's1',
      inputId: 'in-1',
      delivery: 'startNow',
      turnId: 't1',
    });
    expect(isQueuedPromptReply(started)).toBe(false);
    expect(started).toMatchObject({ inputId: 'in-1', turnId: 't1' });
  });

  it('prints a queued input by its id and delivery, and once settled its turn or discard', () => {
    expect(formatPromptReply(queued, false)).toBe('queued in-2 queue');
    expect(formatPromptReply({ ...queued, delivery: 'guide' }, true)).toBe('queued in-2 guide');
    expect(
      formatPromptReply({ ...queued, turnId: 't2', status: 'complete', response: 'ok' }, true),
    ).toBe('t2 complete ok');
    expect(formatPromptReply({ ...queued, discarded: 'user_removed' }, true)).toBe(
      'discarded in-2 user_removed',
    );
  });
});
