import { RuntimeClient } from '@agentwire/bus';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedRuntime } from '../start-runtime.ts';
import { type InProcessRuntimes, startInProcessRuntimes } from '../testing/in-process-runtimes.ts';
import type { RuntimeHostOptions } from './runtime-host.ts';

/** Postgres queries each runtime's host made, by instance id. */
const queries = new Map<string, number>();

/** Counts every query the host sends to Postgres through kysely. */
function countingQueries(instanceId: string) {
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      queries.set(instanceId, (queries.get(instanceId) ?? 0) + 1);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return (o: RuntimeHostOptions): RuntimeHostOptions => ({ ...o, db: o.db.withPlugin(plugin) });
}

let stack: InProcessRuntimes<readonly ['routeA', 'routeB']>;
let client: RuntimeClient;

beforeAll(async () => {
  stack = await startInProcessRuntimes({
    tag: 'op-routing',
    instanceIds: ['routeA', 'routeB'] as const,
    wrapHost: { routeA: countingQueries('routeA'), routeB: countingQueries('routeB') },
  });
  client = new RuntimeClient(stack.bus, stack.names);
});

afterAll(() => stack?.stop());

const runtimeOf = (id: string): StartedRuntime | undefined =>
  stack.runtimes.find((r) => r.instanceId === id);

describe('op routing (docs/decisions/0071, issue 10 item 6)', () => {
  it('an operation on a session resident elsewhere costs the fallback instance no Postgres read', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(`open failed: ${opened.error.message}`);
    const owner = String(opened.owner);
    const other = owner === 'routeA' ? 'routeB' : 'routeA';
    const before = queries.get(other) ?? 0;
    // Each request reaches the owner's subscription and one instance of the queue group: with
    // 30 of them the other instance gets its share of fallback copies (all but surely).
    for (let i = 0; i < 30; i += 1) {
      const reply = await client.interrupt(opened.sessionId);
      expect(reply.ok === false && reply.error.code).toBe('no_active_turn');
    }
    expect(runtimeOf(other)?.host.residentSessionIds).not.toContain(opened.sessionId);
    expect((queries.get(other) ?? 0) - before).toBe(0);
  });

  it('a session nobody holds is still recovered through the fallback, reading Postgres', async () => {
    const opened = await client.open();
    if (!opened.ok) throw new Error(`open failed: ${opened.error.message}`);
    // A first turn gives the session its row and events; then its owner lets it go.
    const prompted = await client.prompt(opened.sessionId, { text: 'hello', wait: true });
    expect(prompted.ok).toBe(true);
    const owner = runtimeOf(String(opened.owner));
    await owner?.host.deactivate(opened.sessionId);
    const before = (queries.get('routeA') ?? 0) + (queries.get('routeB') ?? 0);
    const reply = await client.rename(opened.sessionId, 'recovered by any instance');
    expect(reply).toMatchObject({ ok: true });
    const after = (queries.get('routeA') ?? 0) + (queries.get('routeB') ?? 0);
    expect(after).toBeGreaterThan(before);
  });
});
