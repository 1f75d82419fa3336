import { deadLetterStream, eventHeaders } from '@agentwire/bus';
import { HEADERS, names, type SavePartCommand, type SessionEvent } from '@agentwire/contracts';
import { getInput, listEntries } from '@agentwire/store/testing';
import { createTestEnvironment, type TestEnvironment } from '@agentwire/testing';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerConfig } from './config.ts';
import { startWorkerRuntime, type WorkerRuntime } from './start-worker-runtime.ts';
import { disposeWithStreams } from './testing/dispose-with-streams.ts';
import { waitForConsumersIdle } from './testing/wait-for-consumers.ts';
import { generateWorkload, type WorkItem } from './testing/workload.ts';

let env: TestEnvironment;
let runtime: WorkerRuntime;
let config: WorkerConfig;
const encoder = new TextEncoder();

beforeAll(async () => {
  env = await createTestEnvironment();
  config = WorkerConfig.parse({
    DATABASE_URL: env.databaseUrl,
    NATS_URL: env.natsUrl,
    AW_PREFIX: env.prefix,
    AW_MAX_MESSAGE_BYTES: '4096',
  });
  runtime = await startWorkerRuntime({ config });
});

afterAll(async () => {
  await runtime?.stop();
  await disposeWithStreams(env);
});

const items = generateWorkload({ seed: 3, items: 300, sessions: 2, sessionPrefix: 'dl' });
const firstEvent = (type: string) =>
  (
    items.find((i) => i.kind === 'event' && i.event.type === type) as Extract<
      WorkItem,
      { kind: 'event' }
    >
  ).event;
const firstCommand = (kind: string) =>
  (
    items.find((i) => i.kind === 'command' && i.command.kind === kind) as Extract<
      WorkItem,
      { kind: 'command' }
    >
  ).command;

interface BadInput {
  readonly name: string;
  readonly subject: string;
  readonly body: string;
  readonly headers?: Record<string, string>;
  readonly consumer: 'events' | 'commands';
  readonly code: string;
  /** A fragment the reason must contain: what was wrong. */
  readonly reason: RegExp;
}

function eventInput(
  name: string,
  event: unknown,
  code: string,
  reason: RegExp,
  extra: Partial<BadInput> = {},
): BadInput {
  const e = event as SessionEvent;
  const h: Record<string, string> = { [HEADERS.eventType]: e.type, [HEADERS.msgId]: `bad-${name}` };
  return {
    name,
    subject: names(env.prefix).eventSubject(e.sessionId),
    body: JSON.stringify(event),
    headers: h,
    consumer: 'events',
    code,
    reason,
    ...extra,
  };
}

function commandInput(
  name: string,
  command: Record<string, unknown>,
  code: string,
  reason: RegExp,
  extra: Partial<BadInput> = {},
): BadInput {
  const save = firstCommand('save_part');
  return {
    name,
    subject: names(env.prefix).commandSubject(save.sessionId),
    body: JSON.stringify(command),
    headers: { [HEADERS.msgId]: `${save.commandId}:bad-${name}` },
    consumer: 'commands',
    code,
    reason,
    ...extra,
  };
}

const other = (sid: string) => (sid === 'dl-0' ? 'dl-1' : 'dl-0');

function badInputs(): BadInput[] {
  const checkpoint = { ...firstEvent('checkpoint_created'), id: 'bad-cp' };
  const save = firstCommand('save_part') as SavePartCommand;
  return [
    eventInput('malformed-json', checkpoint, 'malformed_json', /malformed JSON/, {
      body: '{"id": "x", ',
    }),
    eventInput(
      'payload-schema',
      { ...checkpoint, payload: { checkpointId: 7 } },
      'invalid_payload',
      /checkpoint_created.*payload\.checkpointId/,
    ),
    eventInput('unknown-type-header', checkpoint, 'unknown_event_type', /no_such_event/, {
      headers: { [HEADERS.eventType]: 'no_such_event' },
    }),
    eventInput(
      'unknown-type-body',
      { ...checkpoint, type: 'no_such_event' },
      'unknown_event_type',
      /no_such_event/,
      { headers: {} },
    ),
    eventInput(
      'oversized',
      { ...checkpoint, payload: { ...checkpoint.payload, snapshotRef: 'x'.repeat(8000) } },
      'oversized',
      /exceeds the limit of 4096 bytes/,
    ),
    eventInput(
      'subject-session',
      checkpoint,
      'subject_mismatch',
      new RegExp(`names session "${other(checkpoint.sessionId)}"`),
      {
        subject: names(env.prefix).eventSubject(other(checkpoint.sessionId)),
      },
    ),
    eventInput(
      'sequence-zero',
      { ...checkpoint, sequenceNumber: 0 },
      'invalid_envelope',
      /sequenceNumber 0/,
    ),
    eventInput(
      'type-header-mismatch',
      checkpoint,
      'header_mismatch',
      /header says rewind_triggered but the body is checkpoint_created/,
      {
        headers: { [HEADERS.eventType]: 'rewind_triggered' },
      },
    ),
    commandInput(
      'unknown-command',
      { ...save, kind: 'drop_tables' },
      'unknown_command',
      /unknown command kind "drop_tables"/,
    ),
    commandInput(
      'command-schema',
      { ...save, part: { ...save.part, type: 'hologram' } },
      'invalid_command',
      /invalid save_part command.*part/,
    ),
    commandInput(
      'command-session-id',
      { ...save, sessionId: 'not a token!' },
      'invalid_command',
      /sessionId/,
    ),
    commandInput(
      'command-subject',
      save,
      'subject_mismatch',
      new RegExp(`names session "${other(save.sessionId)}"`),
      {
        subject: names(env.prefix).commandSubject(other(save.sessionId)),
      },
    ),
    commandInput(
      'command-msg-id',
      save,
      'header_mismatch',
      /Nats-Msg-Id "someone-else" is not the commandId/,
      {
        headers: { [HEADERS.msgId]: 'someone-else' },
      },
    ),
    commandInput('command-json', save, 'malformed_json', /malformed JSON/, {
      body: 'kind=save_part',
    }),
    // Last: by then its twin, the first good event, was applied. Another event, same number.
    eventInput(
      'sequence-conflict',
      { ...firstGoodEvent(), id: 'bad-sequence-conflict' },
      'sequence_conflict',
      /carries number \d+ of session dl-\d, which event .+ has/,
    ),
  ];
}

/** The first event among the good items (published before the last bad input). */
function firstGoodEvent(): SessionEvent {
  const first = items.find((i) => i.kind === 'event');
  if (first?.kind !== 'event') throw new Error('the workload has no event');
  return first.event;
}

describe('bad input never poisons a consumer (issue 4 "Done when" 5)', () => {
  it('dead-letters each bad input with its reason and goes on with the next good one', async () => {
    const n = names(env.prefix);
    const bad = badInputs();
    const good = items.slice(0, 200);
    // Interleave: a bad input, then good items, so every bad one is followed by good work.
    const step = Math.floor(good.length / bad.length);
    for (const [i, input] of bad.entries()) {
      const h = natsHeaders();
      for (const [k, v] of Object.entries(input.headers ?? {})) h.set(k, v);
      h.set('Test-Case', input.name);
      await runtime.bus.js.publish(input.subject, encoder.encode(input.body), { headers: h });
      for (const item of good.slice(i * step, (i + 1) * step)) await publishGood(item);
    }
    for (const item of good.slice(bad.length * step)) await publishGood(item);
    await waitForConsumersIdle(runtime.bus.jsm, [
      [n.eventsStream, config.AW_EVENTS_DURABLE],
      [n.commandsStream, config.AW_COMMANDS_DURABLE],
    ]);

    const dlq = deadLetterStream(n);
    const info = await runtime.bus.jsm.streams.info(dlq);
    expect(info.state.messages).toBe(bad.length);
    const letters = new Map<
      string,
      { code: string; reason: string; subject: string; on: string }
    >();
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await runtime.bus.jsm.streams.getMessage(dlq, { seq });
      letters.set(m?.header.get('Test-Case') ?? '?', {
        code: m?.header.get(HEADERS.deadLetterCode) ?? '',
        reason: m?.header.get(HEADERS.deadLetterReason) ?? '',
        subject: m?.header.get(HEADERS.deadLetterSubject) ?? '',
        on: m?.subject ?? '',
      });
    }
    for (const input of bad) {
      const letter = letters.get(input.name);
      expect(letter, input.name).toBeDefined();
      expect(letter?.code, input.name).toBe(input.code);
      expect(letter?.reason, input.name).toMatch(input.reason);
      expect(letter?.subject, input.name).toBe(input.subject);
      const durable =
        input.consumer === 'events' ? config.AW_EVENTS_DURABLE : config.AW_COMMANDS_DURABLE;
      expect(letter?.on, input.name).toBe(n.deadLetterSubject(durable));
    }

    // Every good item after the bad ones was applied.
    const lastGoodInput = [...good]
      .reverse()
      .find((i) => i.kind === 'event' && i.event.type === 'turn_steer_queued');
    const [sessionId, inputId] =
      lastGoodInput?.kind === 'event' && lastGoodInput.event.type === 'turn_steer_queued'
        ? [lastGoodInput.event.sessionId, lastGoodInput.event.payload.pendingInputId]
        : ['', ''];
    expect((await getInput(runtime.db, sessionId, inputId))?.admitted_seq).toBeGreaterThan(0);
    const messages = await sql<{ c: number }>`select count(*)::int as c from messages`.execute(
      runtime.db,
    );
    const expectedMessages = new Set(
      good.flatMap((i) =>
        i.kind === 'command' && 'message' in i.command ? [i.command.message.id] : [],
      ),
    );
    expect(messages.rows[0]?.c).toBeGreaterThanOrEqual(expectedMessages.size);
    const withEntries = good.find(
      (i) => i.kind === 'event' && i.event.type === 'checkpoint_created',
    );
    expect(
      await listEntries(
        runtime.db,
        withEntries?.kind === 'event' ? withEntries.event.sessionId : '',
      ),
    ).not.toHaveLength(0);
  });

  it('tolerates a tool part going backwards: no dead letter, the part keeps its later status', async () => {
    const n = names(env.prefix);
    const before = (await runtime.bus.jsm.streams.info(deadLetterStream(n))).state.messages;
    const parts = items.filter(
      (i) =>
        i.kind === 'command' && i.command.kind === 'save_part' && i.command.part.type === 'tool',
    );
    type CommandItem = Extract<WorkItem, { kind: 'command' }>;
    const [pending, running] = parts as [CommandItem, CommandItem];
    expect(
      running.command.kind === 'save_part' &&
        running.command.part.type === 'tool' &&
        running.command.part.state.status,
    ).toBe('running');
    const fresh = (c: CommandItem, suffix: string) => ({
      ...c.command,
      commandId: `${c.command.commandId}-${suffix}`,
    });
    for (const body of [fresh(running, 'late1'), fresh(pending, 'late2')]) {
      const h = natsHeaders();
      h.set(HEADERS.msgId, body.commandId);
      await runtime.bus.js.publish(
        n.commandSubject(body.sessionId),
        encoder.encode(JSON.stringify(body)),
        { headers: h },
      );
    }
    await waitForConsumersIdle(runtime.bus.jsm, [[n.commandsStream, config.AW_COMMANDS_DURABLE]]);
    expect((await runtime.bus.jsm.streams.info(deadLetterStream(n))).state.messages).toBe(before);
    const part = pending.command.kind === 'save_part' ? pending.command.part.id : '';
    const row = await sql<{ status: string }>`select status from parts where id = ${part}`.execute(
      runtime.db,
    );
    expect(row.rows[0]?.status).toBe('error');
  });
});

async function publishGood(item: WorkItem): Promise<void> {
  const n = names(env.prefix);
  if (item.kind === 'event') {
    await runtime.bus.js.publish(
      n.eventSubject(item.event.sessionId),
      encoder.encode(JSON.stringify(item.event)),
      {
        headers: eventHeaders(item.event, 0),
      },
    );
    return;
  }
  const h = natsHeaders();
  h.set(HEADERS.msgId, item.command.commandId);
  h.set(HEADERS.eventType, item.command.kind);
  await runtime.bus.js.publish(
    n.commandSubject(item.command.sessionId),
    encoder.encode(JSON.stringify(item.command)),
    { headers: h },
  );
}
