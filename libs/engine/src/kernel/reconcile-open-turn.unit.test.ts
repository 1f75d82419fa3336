import { describe, expect, it } from 'vitest';
import {
  countingIds,
  RecordingLogger,
  RecordingPublisher,
  RecordingWriter,
  steppingClock,
} from '../testing/fake-ports.ts';
import { EventAppender } from './event-appender.ts';
import { EventNumbering } from './event-numbering.ts';
import { reconcileOpenTurn } from './reconcile-open-turn.ts';
import { SessionEmitter } from './session-emitter.ts';

const TRACE = 'c'.repeat(32);

function reconcileHarness() {
  const publisher = new RecordingPublisher();
  const writer = new RecordingWriter();
  const appender = new EventAppender({
    sessionId: 's',
    numbering: new EventNumbering(41),
    publisher,
    usage: { recordUsage: () => {} },
    logger: new RecordingLogger(),
    lastDurableSequence: 41,
  });
  const emitter = new SessionEmitter('s', appender, steppingClock(), countingIds());
  const deps = {
    emitter,
    writer,
    clock: steppingClock(),
    ids: countingIds(),
    model: { providerId: 'scripted', modelId: 'scripted-1' },
    cwd: '/w',
    root: '/w',
    logger: new RecordingLogger(),
  };
  return { publisher, writer, deps };
}

describe('reconcileOpenTurn (flow 6, issue 20)', () => {
  it('denies open requests, fails open calls, completes the batch, records and seals the turn as runtime_lost', async () => {
    const { publisher, writer, deps } = reconcileHarness();
    await reconcileOpenTurn(deps, {
      turnId: 't2',
      traceId: TRACE,
      inputId: undefined,
      toolCalls: [
        {
          toolCallId: 'c2',
          toolName: 'run_command',
          input: { command: 'x' },
          assistantMessageId: 'm1',
          startedAt: 7,
        },
      ],
      permissions: [{ requestId: 'r2', toolCallId: 'c2', toolName: 'run_command' }],
      batch: { toolCallIds: ['c1', 'c2'], successCount: 1, errorCount: 0 },
      lastMessageId: 'm1',
      model: { providerId: 'p', modelId: 'm' },
    });
    expect(publisher.published.map((p) => [p.event.type, p.event.sequenceNumber])).toEqual([
      ['permission_denied', 42],
      ['tool_call_error', 43],
      ['tool_batch_complete', 44],
      ['turn_error', 45],
    ]);
    const payloads = publisher.published.map((p) => p.event.payload);
    expect(payloads[0]).toEqual({
      toolCallId: 'c2',
      toolName: 'run_command',
      reason: 'runtime_lost',
      requestId: 'r2',
    });
    expect(payloads[2]).toEqual({ toolCallIds: ['c1', 'c2'], successCount: 1, errorCount: 1 });
    expect(payloads[3]).toMatchObject({
      turnPhase: 'runtime_lost',
      error: { code: 'runtime_lost' },
    });
    expect(writer.calls).toEqual([
      {
        kind: 'save_part',
        sequence: 42,
        value: expect.objectContaining({
          id: 'm1.c2',
          toolName: 'run_command',
          state: expect.objectContaining({
            status: 'error',
            time: expect.objectContaining({ start: 7 }),
          }),
        }),
      },
      {
        kind: 'save_assistant_message',
        sequence: 44,
        value: expect.objectContaining({
          error: expect.objectContaining({ code: 'runtime_lost' }),
          providerId: 'p',
          modelId: 'm',
          parentId: 'm1',
          anchor: { turnId: 't2' },
          semantics: expect.objectContaining({ providerVisibility: 'hidden' }),
        }),
      },
    ]);
  });

  it('given a failing writer, throws before sealing: the next load settles what is still open', async () => {
    const { publisher, writer, deps } = reconcileHarness();
    writer.savePart = async () => {
      throw new Error('commands stream unavailable');
    };
    const open = {
      turnId: 't2',
      traceId: TRACE,
      inputId: undefined,
      toolCalls: [
        { toolCallId: 'c', toolName: 'x', input: null, assistantMessageId: 'm', startedAt: 1 },
      ],
      permissions: [],
      batch: undefined,
      lastMessageId: undefined,
      model: undefined,
    };
    await expect(reconcileOpenTurn(deps, open)).rejects.toThrow();
    expect(publisher.published.map((p) => p.event.type)).not.toContain('turn_error');
  });
});
