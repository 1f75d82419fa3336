import { type BusConnection, connectBus, deleteProvisioned, provision } from '@agentwire/bus';
import {
  type Names,
  names as namesOf,
  type PersistenceCommand,
  type PersistenceConfirmation,
} from '@agentwire/contracts';
import { parsePersistenceCommandOrThrow } from '@agentwire/contracts/testing';
import { countingIds, RecordingLogger, steppingClock } from '@agentwire/engine/testing';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { AckPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandWriter } from './command-writer.ts';

let env: TestEnvironment;
let bus: BusConnection;
let n: Names;

beforeAll(async () => {
  env = await createTestEnvironment();
  bus = await connectBus({ servers: env.natsUrl, name: 'command-writer-int' });
  n = namesOf(env.prefix);
  await provision(bus.nc, n);
});

afterAll(async () => {
  await deleteProvisioned(bus.jsm, n);
  await bus.close();
  await env.dispose();
});

/**
 * A stand-in for the persistence worker: reads the commands stream and confirms each
 * delivery with `answer(command, delivery)`, or not at all when it returns undefined (a
 * confirmation lost on core NATS).
 */
async function fakeWorker(
  sessionId: string,
  answer: (c: PersistenceCommand, nth: number) => PersistenceConfirmation | undefined,
): Promise<{ seen: PersistenceCommand[]; stop: () => Promise<void> }> {
  // One session's commands only: the stream still holds the earlier tests' commands.
  await bus.jsm.consumers.add(n.commandsStream, {
    durable_name: 'fake-worker',
    ack_policy: AckPolicy.Explicit,
    filter_subject: n.commandSubject(sessionId),
  });
  const consumer = await bus.js.consumers.get(n.commandsStream, 'fake-worker');
  const seen: PersistenceCommand[] = [];
  const messages: ConsumerMessages = await consumer.consume();
  const done = (async () => {
    for await (const m of messages) {
      m.ack();
      const command = parsePersistenceCommandOrThrow(m.json());
      seen.push(command);
      const nth = seen.filter((c) => c.commandId === command.commandId).length;
      const confirmation = answer(command, nth);
      if (confirmation !== undefined) {
        bus.nc.publish(n.confirmSubject(command.sessionId), JSON.stringify(confirmation));
      }
    }
  })();
  return {
    seen,
    stop: async () => {
      await messages.close();
      await done;
      await bus.jsm.consumers.delete(n.commandsStream, 'fake-worker');
    },
  };
}

function writer(sessionId: string, logger = new RecordingLogger()) {
  // Command ids are message ids: unique per test, or the broker drops a repeat as a duplicate.
  const counting = countingIds();
  const ids = { ...counting, newId: (kind: string) => `${sessionId}-${counting.newId(kind)}` };
  return new CommandWriter({
    nc: bus.nc,
    js: bus.js,
    names: n,
    sessionId,
    ids,
    clock: steppingClock(),
    logger,
    confirmTimeoutMs: 300,
    confirmAttempts: 3,
  });
}

const row = {
  parentSessionId: null,
  title: 'fix it',
  titleSource: 'first_input' as const,
  firstInput: 'fix it',
  cwd: '/w',
  root: '/w',
  createdAt: 1_700_000_000_000,
};
const ctx = { sequence: 1, traceId: 'a'.repeat(32) };

describe('CommandWriter: the session row and titles wait for their commit (docs/decisions/0130)', () => {
  it('republishes a write whose confirmation was lost, and reports the answer as republished', async () => {
    // The first delivery is applied but its confirmation lost; the republish is a duplicate.
    const worker = await fakeWorker('cw-lost', (c, nth) =>
      nth === 1
        ? undefined
        : { commandId: c.commandId, sessionId: c.sessionId, ok: true, outcome: 'duplicate' },
    );
    const logger = new RecordingLogger();
    const w = writer('cw-lost', logger);
    try {
      const write = await w.ensureSession({ sessionId: 'cw-lost', ...row }, ctx);
      expect(write).toEqual({ confirmed: true, outcome: 'duplicate', republished: true });
      expect(worker.seen.map((c) => c.kind)).toEqual(['ensure_session', 'ensure_session']);
      expect(new Set(worker.seen.map((c) => c.commandId)).size).toBe(1);
      expect(logger.lines.some((l) => l.msg?.includes('publishing it again'))).toBe(true);
    } finally {
      w.close();
      await worker.stop();
    }
  });

  it('reports a rename no worker confirms as unconfirmed after its attempts', async () => {
    const worker = await fakeWorker('cw-silent', () => undefined);
    const w = writer('cw-silent');
    try {
      const write = await w.updateTitle(
        { sessionId: 'cw-silent', title: 'Mine', source: 'custom' },
        ctx,
      );
      expect(write).toEqual({ confirmed: false });
      expect(worker.seen).toHaveLength(3);
      expect(worker.seen[0]).toMatchObject({
        kind: 'update_title',
        expectedSources: ['default', 'first_input', 'generated', 'custom'],
      });
    } finally {
      w.close();
      await worker.stop();
    }
  });
});
