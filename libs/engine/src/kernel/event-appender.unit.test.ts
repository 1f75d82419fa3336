import { createEvent, type SessionEvent } from '@agentwire/contracts';
import { describe, expect, it } from 'vitest';
import { RecordingLogger, RecordingPublisher } from '../testing/fake-ports.ts';
import { AppendError } from './append-error.ts';
import { EventAppender } from './event-appender.ts';
import { EventNumbering } from './event-numbering.ts';

const TRACE = `${'a'.repeat(31)}b`;
let n = 0;
function ev(type: 'turn_started' | 'model_streaming' | 'interrupt', turnId = 't1'): SessionEvent {
  n += 1;
  const base = { id: `e${n}`, sessionId: 's1', turnId, timestamp: 1, traceId: TRACE };
  if (type === 'turn_started')
    return createEvent({ ...base, type, payload: { turnNumber: 0, input: 'x' } });
  if (type === 'model_streaming')
    return createEvent({ ...base, type, payload: { delta: 'd', done: false } });
  return createEvent({ ...base, type, payload: {} as never });
}

function setup(startAfter = 0) {
  const log: string[] = [];
  const publisher = new RecordingPublisher();
  const logger = new RecordingLogger();
  const appender = new EventAppender({
    sessionId: 's1',
    numbering: new EventNumbering(startAfter),
    publisher,
    logger,
    lastDurableSequence: startAfter,
    usage: { recordUsage: (e) => void log.push(`usage:${e.sequenceNumber}`) },
  });
  appender.addSink({
    name: 'a',
    onSessionEvent: (e) => void log.push(`sink-a:${e.sequenceNumber}`),
  });
  return { appender, publisher, logger, log };
}

describe('appendEvent (R5)', () => {
  it('numbers from the start point, publishes only numbered events and runs the steps in order', async () => {
    const { appender, publisher, log } = setup(41);
    const first = await appender.append(ev('turn_started'));
    const second = await appender.append(ev('model_streaming'));
    expect([first.sequenceNumber, second.sequenceNumber]).toEqual([42, 43]);
    expect(publisher.published.map((p) => p.event.sequenceNumber)).toEqual([42, 43]);
    expect(log).toEqual(['usage:42', 'sink-a:42', 'usage:43', 'sink-a:43']);
  });

  it('stamps the previous non-transient number on every publish', async () => {
    const { appender, publisher } = setup(10);
    await appender.append(ev('turn_started'));
    await appender.append(ev('model_streaming'));
    await appender.append(ev('model_streaming'));
    await appender.append(ev('turn_started'));
    expect(publisher.published.map((p) => p.previousDurableSequence)).toEqual([10, 11, 11, 11]);
  });

  it('logs a throwing sink with its phase and still notifies the others (R5.3, R5.4)', async () => {
    const { appender, logger, log } = setup();
    appender.addSink({
      name: 'bad',
      onSessionEvent: () => {
        throw new Error('boom');
      },
    });
    appender.addSink({
      name: 'c',
      onSessionEvent: (e) => void log.push(`sink-c:${e.sequenceNumber}`),
    });
    await appender.append(ev('turn_started'));
    expect(log).toContain('sink-c:1');
    const line = logger.lines.find((l) => l.level === 'error');
    expect(line?.obj).toMatchObject({ phase: 'session_event.notify_sinks', sink: 'bad' });
  });

  it('warns on a failing usage step and still publishes and notifies (R5.2)', async () => {
    const publisher = new RecordingPublisher();
    const logger = new RecordingLogger();
    const seen: number[] = [];
    const appender = new EventAppender({
      sessionId: 's1',
      numbering: new EventNumbering(),
      publisher,
      logger,
      lastDurableSequence: 0,
      usage: { recordUsage: () => Promise.reject(new Error('metrics down')) },
    });
    appender.addSink({ name: 's', onSessionEvent: (e) => void seen.push(e.sequenceNumber) });
    await appender.append(ev('turn_started'));
    expect(seen).toEqual([1]);
    expect(logger.lines.find((l) => l.level === 'warn')?.obj).toMatchObject({
      phase: 'session_event.record_usage',
    });
  });

  it('a fenced publish fails with the store phase, reaches no sink, and breaks the appender', async () => {
    const { appender, publisher, log } = setup();
    await appender.append(ev('turn_started'));
    publisher.fenceNext = true;
    const error = await appender.append(ev('turn_started')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppendError);
    expect(error).toMatchObject({ phase: 'event_store.append', code: 'fenced' });
    publisher.fenceNext = false;
    await expect(appender.append(ev('turn_started'))).rejects.toMatchObject({
      code: 'session_broken',
    });
    expect(log.filter((l) => l.startsWith('sink-a'))).toEqual(['sink-a:1']);
    expect(appender.broken?.code).toBe('fenced');
  });

  it('a refused event withdraws its number, reaches no step, and the session appends on, gapless (0160)', async () => {
    const { appender, publisher, log } = setup();
    await appender.append(ev('turn_started'));
    publisher.refuse.add('model_streaming');
    const error = await appender.append(ev('model_streaming')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppendError);
    expect(error).toMatchObject({
      phase: 'event_store.append',
      code: 'refused',
      eventType: 'model_streaming',
    });
    expect(String((error as Error).message)).toContain('exceeds max_payload');
    expect(appender.broken).toBeUndefined();
    expect(appender.latestSequence).toBe(1);
    const next = await appender.append(ev('turn_started'));
    expect(next.sequenceNumber).toBe(2);
    expect(publisher.published.map((p) => p.event.sequenceNumber)).toEqual([1, 2]);
    expect(log.filter((l) => l.startsWith('usage'))).toEqual(['usage:1', 'usage:2']);
  });

  it('serialises concurrent appends: step order equals event order (R5.6)', async () => {
    const order: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const appender = new EventAppender({
      sessionId: 's1',
      numbering: new EventNumbering(),
      publisher: new RecordingPublisher(),
      logger: new RecordingLogger(),
      lastDurableSequence: 0,
      usage: {
        async recordUsage(e) {
          if (e.sequenceNumber === 1) await gate;
          order.push(e.sequenceNumber);
        },
      },
    });
    const all = [
      appender.append(ev('turn_started')),
      appender.append(ev('turn_started')),
      appender.append(ev('turn_started')),
    ];
    release();
    await Promise.all(all);
    expect(order).toEqual([1, 2, 3]);
  });

  it('logs lifecycle events at info and summarises streaming per 100 (R5.5)', async () => {
    const { appender, logger } = setup();
    await appender.append(ev('turn_started'));
    for (let i = 0; i < 250; i += 1) await appender.append(ev('model_streaming'));
    const info = logger.lines.filter((l) => l.level === 'info');
    expect(info.map((l) => l.msg)).toEqual([
      'turn_started',
      'streaming events',
      'streaming events',
    ]);
  });
});

describe('EventNumbering (R2.2, R2.3)', () => {
  it('numbers on from where the session was, one by one', () => {
    const n = new EventNumbering(41);
    expect(n.append(ev('turn_started', 'tA')).sequenceNumber).toBe(42);
    expect(n.append(ev('model_streaming', 'tA')).sequenceNumber).toBe(43);
    expect(n.latestSequence()).toBe(43);
  });

  it('withdraws only the last number assigned (0160)', () => {
    const w = new EventNumbering(5);
    const a = w.append(ev('turn_started'));
    const b = w.append(ev('model_streaming'));
    expect(() => w.withdraw(a)).toThrow(/cannot withdraw/);
    w.withdraw(b);
    expect(w.latestSequence()).toBe(6);
    expect(w.append(ev('turn_started')).sequenceNumber).toBe(7);
  });
});
