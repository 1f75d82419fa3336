import { names, type SessionEvent } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import type { TestEnvironment } from '@agentwire/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkOrigin } from './fork-origin.ts';
import { provision } from './provision.ts';
import { publishEvent } from './publish-event.ts';
import { deprovision, setup } from './test-support.ts';

let env: TestEnvironment;
let nc: NatsConnection;

beforeAll(async () => {
  ({ env, nc } = await setup());
  await provision(nc, names(env.prefix));
});

afterAll(async () => {
  await deprovision(nc, names(env.prefix));
  await nc.close();
  await env.dispose();
});

function forked(sessionId: string, seq: number, originalSessionId: string, fork: string) {
  const e = sampleSessionEvent('session_forked', { sessionId, sequenceNumber: seq, turnId: null });
  return {
    ...e,
    id: `${sessionId}-${seq}`,
    payload: { originalSessionId, forkedSessionId: fork, targetMessageId: 'msg_1' },
  } as SessionEvent;
}

describe('a fork read back from its first event (docs/decisions/0243)', () => {
  it('names the original of a fork, and nothing for other sessions', async () => {
    const n = names(env.prefix);
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    // Other sessions' events come first in the stream: the lookup is by subject.
    const title = sampleSessionEvent('session_title_updated', {
      sessionId: 'plain',
      sequenceNumber: 1,
      turnId: null,
    });
    await publishEvent(js, n, { ...title, id: 'plain-1' } as SessionEvent, {
      previousDurableSequence: 0,
    });
    // The original says it was forked too (its own event, numbered later): not a fork.
    await publishEvent(js, n, forked('orig', 1, 'orig', 'fork-a'), { previousDurableSequence: 0 });
    await publishEvent(js, n, forked('fork-a', 1, 'orig', 'fork-a'), {
      previousDurableSequence: 0,
    });
    // A forged first event naming another fork does not make this one a fork.
    await publishEvent(js, n, forked('liar', 1, 'orig', 'fork-a'), { previousDurableSequence: 0 });

    expect(await forkOrigin(jsm, n, 'fork-a')).toBe('orig');
    expect(await forkOrigin(jsm, n, 'orig')).toBeUndefined();
    expect(await forkOrigin(jsm, n, 'plain')).toBeUndefined();
    expect(await forkOrigin(jsm, n, 'liar')).toBeUndefined();
    expect(await forkOrigin(jsm, n, 'no-such-session')).toBeUndefined();
  });
});
