import {
  type BusConnection,
  connectBus,
  deleteProvisioned,
  ensureDurableConsumer,
  eventHeaders,
  provision,
} from '@agentwire/bus';
import { names as namesOf } from '@agentwire/contracts';
import { createTestEnvironment, type TestEnvironment, waitUntil } from '@agentwire/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from './delivery.ts';
import { consumeEvents } from './event-consumer.ts';
import { generateSessionEvents } from './testing/index.ts';

let env: TestEnvironment;
let bus: BusConnection;

beforeAll(async () => {
  env = await createTestEnvironment();
  bus = await connectBus({ servers: env.natsUrl, name: 'event-consumer-int' });
  await provision(bus.nc, namesOf(env.prefix));
});

afterAll(async () => {
  await deleteProvisioned(bus.jsm, namesOf(env.prefix));
  await bus.close();
  await env.dispose();
});

describe('the projection consumer (DESIGN.md flow 3)', () => {
  it('knows its backlog from its deliveries: left in the stream plus handed over and unsettled (0246)', async () => {
    const n = namesOf(env.prefix);
    const durable = 'backlog-test';
    const durableConsumer = await ensureDurableConsumer(bus.nc, bus.jsm, {
      stream: n.eventsStream,
      durable,
      filterSubject: n.allEventsFilter,
      ackWaitMs: 30_000,
      // Four in flight at most: the rest stay in the stream until some are settled.
      maxAckPending: 4,
    });
    const events = generateSessionEvents('ses_backlog', 10, 7);
    for (const g of events) {
      await bus.js.publish(n.eventSubject(g.event.sessionId), JSON.stringify(g.event), {
        headers: eventHeaders(g.event, g.prev),
      });
    }
    const held: Delivery[] = [];
    const consumer = await consumeEvents({
      js: bus.js,
      consumer: durableConsumer,
      names: n,
      durable,
      accept: (d) => held.push(d),
      refused: () => {},
      batch: 100,
    });
    try {
      await waitUntil(() => held.length === 4, { what: 'four deliveries' });
      // Six still in the stream after the fourth, four handed over.
      expect(consumer.backlog()).toBe(10);
      held[0]?.ack();
      held[0]?.ack();
      held[1]?.nak(60_000);
      held[2]?.deadLetter('invalid_payload', 'test');
      // Settling twice counts once. The nak-ed one still takes one of the server's four, so
      // two more come: four left in the stream, three handed over and unsettled.
      await waitUntil(() => held.length === 6, { what: 'two more deliveries' });
      expect(consumer.backlog()).toBe(7);
      let acked = 3;
      await waitUntil(
        () => {
          for (const d of held.slice(acked)) d.ack();
          acked = held.length;
          return held.length === 10;
        },
        { what: 'the last deliveries' },
      );
      for (const d of held.slice(acked)) d.ack();
      // Nothing here is unsettled: the nak-ed one is the server's again until it comes back.
      expect(consumer.backlog()).toBe(0);
    } finally {
      await consumer.stop();
    }
  });
});
