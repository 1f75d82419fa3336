import type { AssistantMessage, Part, SessionEvent, UserMessage } from '@agentwire/contracts';
import { SAMPLE_TRACE_ID, sampleSessionEvent } from '@agentwire/contracts/testing';
import { transcriptView } from '@agentwire/domain';
import { describe, expect, it } from 'vitest';
import { type PersistedSession, recoverFromTranscript } from './recover-from-transcript.ts';

const T0 = 1_700_000_000_000;

function user(turn: number): { message: UserMessage; parts: Part[] } {
  const id = `u${turn}`;
  return {
    message: {
      id,
      sessionId: 's1',
      role: 'user',
      time: { created: T0 + turn * 100 },
      agent: 'build',
      anchor: { turnId: `turn-${turn}`, origin: 'realUser' },
    },
    parts: [{ id: `${id}-p`, sessionId: 's1', messageId: id, type: 'text', text: `ask ${turn}` }],
  };
}

function answer(turn: number, completed: boolean): { message: AssistantMessage; parts: Part[] } {
  const id = `a${turn}`;
  const created = T0 + turn * 100 + 10;
  return {
    message: {
      id,
      sessionId: 's1',
      role: 'assistant',
      time: completed ? { created, completed: created + 5 } : { created },
      parentId: `u${turn}`,
      providerId: 'scripted',
      modelId: 'fast',
      mode: 'build',
      agent: 'build',
      path: { cwd: '/w', root: '/w' },
      cost: 0,
      tokens: { input: 100, output: 20, reasoning: 0, cache: { read: 0, write: 0 } },
      ...(completed ? { finish: 'stop' } : {}),
    },
    parts: [{ id: `${id}-p`, sessionId: 's1', messageId: id, type: 'text', text: `done ${turn}` }],
  };
}

function persisted(
  transcript: PersistedSession['transcript'],
  lastSequence = 40,
): PersistedSession {
  return {
    lastSequence,
    session: { createdAt: T0, title: 'Mine', titleSource: 'custom' },
    transcript,
  };
}

function event(type: SessionEvent['type'], seq: number, turnId: string | null): SessionEvent {
  return sampleSessionEvent(type, { sessionId: 's1', sequenceNumber: seq, turnId });
}

const twoTurns = [user(1), answer(1, true), user(2), answer(2, true)];

describe('recoverFromTranscript (R10.4)', () => {
  it('stands a quiet session at its durable mark, with the row title and the transcript fields', () => {
    const tail = [event('turn_started', 31, 'turn-2'), event('turn_complete', 38, 'turn-2')];
    const found = recoverFromTranscript('s1', persisted(twoTurns), tail, SAMPLE_TRACE_ID);
    if ('refused' in found) throw new Error(found.refused);
    expect(found.lastSequence).toBe(40);
    expect(found.projection).toMatchObject({
      id: 's1',
      lastSequenceNumber: 40,
      title: 'Mine',
      titleSource: 'custom',
    });
    expect(transcriptView(found.projection)).toMatchObject({
      status: 'idle',
      turnCount: 2,
      currentTurnId: null,
      totalTokenCount: 240,
    });
  });

  it('refuses what does not stand for the session now, and says why', () => {
    const cases: [string, PersistedSession | undefined, SessionEvent[]][] = [
      ['not_persisted', undefined, []],
      ['not_persisted', persisted(twoTurns, 0), []],
      // The worker has not made everything the stream holds durable.
      ['worker_behind', persisted(twoTurns), [event('turn_started', 41, 'turn-3')]],
      // The transcript's last turn is still running.
      ['turn_open', persisted([user(1), answer(1, true), user(2), answer(2, false)]), []],
      // The stream started a turn the transcript does not have yet.
      ['transcript_behind', persisted(twoTurns), [event('turn_started', 39, 'turn-3')]],
      // The stream's last turn is not sealed, though the transcript's is.
      ['transcript_behind', persisted(twoTurns), [event('turn_started', 31, 'turn-2')]],
    ];
    for (const [reason, rows, tail] of cases) {
      expect(recoverFromTranscript('s1', rows, tail, SAMPLE_TRACE_ID), reason).toEqual({
        refused: reason,
      });
    }
  });
});
