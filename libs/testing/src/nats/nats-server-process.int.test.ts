import { readdirSync, readFileSync } from 'node:fs';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../wait-until.ts';
import { natsServerSupport } from './find-nats-server.ts';
import { type NatsServerProcess, startNatsServer } from './nats-server-process.ts';

const support = natsServerSupport();

/** Whether every thread of `pid` is stopped (state `T` in each task stat file under /proc). */
function stoppedThreads(pid: number): boolean {
  try {
    const tasks = readdirSync(`/proc/${pid}/task`);
    return tasks.every((t) => {
      const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
    });
  } catch {
    return false;
  }
}

describe.skipIf(!support.ok)('startNatsServer', () => {
  let server: NatsServerProcess;

  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(() => server?.dispose());

  it('keeps acknowledged messages, port and name across a SIGKILL and a clean restart', async () => {
    const { url, port } = server;
    const nc = await connect({ servers: url });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'KEEP', subjects: ['keep.>'] });
    const js = jetstream(nc);
    for (let i = 0; i < 10; i++) await js.publish('keep.a', `m${i}`);
    await nc.close();

    const pid = server.pid;
    await server.kill();
    expect(server.state).toBe('stopped');
    await expect(connect({ servers: url, reconnect: false, timeout: 500 })).rejects.toThrow();
    await server.start();
    expect(server.pid).not.toBe(pid);
    await server.restart();
    expect([server.url, server.port, server.state]).toEqual([url, port, 'running']);

    const again = await connect({ servers: url });
    const info = await (await jetstreamManager(again)).streams.info('KEEP');
    expect(info.state.messages).toBe(10);
    await again.close();
  });

  it('freezes on pause and answers again on resume', async () => {
    const nc = await connect({ servers: server.url, reconnect: false });
    const jsm = await jetstreamManager(nc, { timeout: 1_000 });
    server.pause();
    expect(server.state).toBe('paused');
    // The stop is delivered by the kernel: wait until every thread of the process shows it
    // (a request sent before that may still be answered).
    await waitUntil(() => stoppedThreads(server.pid ?? 0), { what: 'the process stopped' });
    // A stopped process answers nothing: within three tries a request times out (under
    // load, one answer already on its way out may still arrive first).
    let refusals = 0;
    for (let i = 0; i < 3 && refusals === 0; i += 1) {
      await jsm.getAccountInfo().then(
        () => undefined,
        () => {
          refusals += 1;
        },
      );
    }
    expect(refusals).toBe(1);
    server.resume();
    // A resumed process on a loaded machine may take more than one request timeout to
    // catch up on what queued while it was stopped: it answers again within a bound.
    const answered = await answersWithin(() => jsm.getAccountInfo(), 15_000);
    expect(answered.streams).toBeGreaterThanOrEqual(1);
    await nc.close();
  });

  it('fails a start with the server log when the port is taken', async () => {
    await expect(startNatsServer({ port: server.port, timeoutMs: 10_000 })).rejects.toThrow(
      /exited .* before it was ready[\s\S]*address already in use/,
    );
  });
});

/** The first answer of `ask` within `ms`, retrying after each failure. */
async function answersWithin<T>(ask: () => Promise<T>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await ask();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
