import { decodePersistenceCommand, HEADERS, names } from '@agentwire/contracts';
import { samplePersistenceCommands } from '@agentwire/contracts/testing';
import type { TestEnvironment } from '@agentwire/testing';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provision } from './provision.ts';
import { publishCommand } from './publish-command.ts';
import { deprovision, setup } from './test-support.ts';

let env: TestEnvironment;
let nc: NatsConnection;

beforeAll(async () => {
  ({ env, nc } = await setup());
});

afterAll(async () => {
  await deprovision(nc, names(env.prefix));
  await nc.close();
  await env.dispose();
});

describe('publishCommand', () => {
  it('publishes a contracts PersistenceCommand with Aw-Type = kind; a repeat is a duplicate; an attempt is a new message', async () => {
    const n = names(env.prefix);
    await provision(nc, n);
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const command = samplePersistenceCommands.save_part;

    const first = await publishCommand(js, n, command);
    expect(first.kind).toBe('ok');
    const again = await publishCommand(js, n, command);
    expect(again).toEqual({ kind: 'duplicate', streamSequence: first.streamSequence });
    const retried = await publishCommand(js, n, command, { attempt: 2 });
    expect(retried.kind).toBe('ok');
    expect((await jsm.streams.info(n.commandsStream)).state.messages).toBe(2);

    await jsm.consumers.add(n.commandsStream, {
      durable_name: 'publish-command-test',
      ack_policy: AckPolicy.Explicit,
    });
    const consumer = await js.consumers.get(n.commandsStream, 'publish-command-test');
    const msgs = await consumer.fetch({ max_messages: 2, expires: 5_000 });
    const seen: { subject: string; type: string | undefined; msgId: string | undefined }[] = [];
    for await (const m of msgs) {
      const decoded = decodePersistenceCommand(m.data);
      expect(decoded.ok && decoded.command).toEqual(command);
      seen.push({
        subject: m.subject,
        type: m.headers?.get(HEADERS.eventType),
        msgId: m.headers?.get(HEADERS.msgId),
      });
      m.ack();
    }
    expect(seen).toEqual([
      {
        subject: n.commandSubject(command.sessionId),
        type: 'save_part',
        msgId: command.commandId,
      },
      {
        subject: n.commandSubject(command.sessionId),
        type: 'save_part',
        msgId: `${command.commandId}:2`,
      },
    ]);
  });
});
