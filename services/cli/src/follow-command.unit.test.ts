import {
  BusError,
  type QueryClient,
  type RuntimeClient,
  type SessionFollower,
} from '@agentwire/bus';
import type { SessionEvent } from '@agentwire/contracts';
import { sampleSessionEvent } from '@agentwire/contracts/testing';
import { describe, expect, it } from 'vitest';
import type { CliContext } from './cli-context.ts';
import { CliError } from './cli-error.ts';
import { followCommand } from './follow-command.ts';
import { createStyle } from './style.ts';

const events: SessionEvent[] = [1, 2, 3, 4, 5, 6].map((n) =>
  sampleSessionEvent(n === 6 ? 'turn_complete' : 'model_streaming', { sequenceNumber: n }),
);

/** A client whose first follower fails after `failAfter` events; later ones run to the end. */
function flakyClient(failAfter: number, known = true) {
  const bases: number[] = [];
  const client = {
    knows: async () => known,
    follow(_sid: string, after: number): SessionFollower {
      bases.push(after);
      const attempt = bases.length;
      let last = after;
      return {
        get lastSequence() {
          return last;
        },
        async *[Symbol.asyncIterator]() {
          for (const event of events.filter((e) => e.sequenceNumber > after)) {
            if (attempt === 1 && event.sequenceNumber > failAfter)
              throw new Error('nats went away');
            last = event.sequenceNumber;
            yield event;
          }
        },
        stop: async () => {},
      };
    },
  };
  return { client: client as unknown as RuntimeClient, bases };
}

function context(client: RuntimeClient) {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CliContext = {
    client,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    signal: new AbortController().signal,
    json: false,
    style: createStyle(false),
    progress: (_label, work) => work,
    query: {} as QueryClient,
  };
  return { ctx, out, err };
}

describe('followCommand', () => {
  it('resumes after the last printed number when a follow fails, printing each event once', async () => {
    const { client, bases } = flakyClient(3);
    const { ctx, out, err } = context(client);
    const last = await followCommand(ctx, {
      sessionId: 's1',
      after: 1,
      until: 'turn_complete',
      retryMs: 1,
    });
    expect(last).toBe(6);
    expect(bases).toEqual([1, 3]);
    expect(out.map((l) => Number(l.trim().split(' ')[0]))).toEqual([2, 3, 4, 5, 6]);
    expect(err).toEqual(['follow interrupted (nats went away); resuming after 3']);
  });

  it('says which events aged out of the stream and goes on from the first it still holds', async () => {
    const bases: number[] = [];
    const client = {
      knows: async () => true,
      follow(_sid: string, after: number): SessionFollower {
        bases.push(after);
        return {
          lastSequence: after,
          async *[Symbol.asyncIterator]() {
            if (after < 3) {
              throw new BusError('base expired', {
                code: 'base_expired',
                expiredBase: {
                  afterSequence: after,
                  missingSequence: 2,
                  firstAvailableSequence: 4,
                },
              });
            }
            yield* events.filter((e) => e.sequenceNumber > after);
          },
          stop: async () => {},
        };
      },
    } as unknown as RuntimeClient;
    const { ctx, out, err } = context(client);
    const last = await followCommand(ctx, { sessionId: 's1', after: 1, until: 'turn_complete' });
    expect(last).toBe(6);
    expect(bases).toEqual([1, 3]);
    expect(out.map((l) => Number(l.trim().split(' ')[0]))).toEqual([4, 5, 6]);
    expect(err).toEqual([
      'events 2..3 are no longer retained; continuing from 4 (the projection has the state: agentwire projection s1)',
    ]);
  });

  it('refuses an unknown session with exit code 3', async () => {
    const { client } = flakyClient(0, false);
    const { ctx } = context(client);
    await expect(followCommand(ctx, { sessionId: 'nobody', after: 0 })).rejects.toMatchObject({
      code: 'unknown_session',
      exitCode: 3,
    });
    await expect(followCommand(ctx, { sessionId: 'bad id', after: 0 })).rejects.toBeInstanceOf(
      CliError,
    );
  });
});
