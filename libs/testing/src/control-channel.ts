import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PostgresServer } from './postgres-server.ts';

/** What the control channel can do with Postgres in this run. */
export interface ControlChannelOptions {
  /** The run's shared server if it can be restarted, or why not. */
  readonly shared: PostgresServer | { readonly ok: false; readonly reason: string };
  /** Starts a server dedicated to one test file, or why that is impossible. */
  readonly dedicated:
    | (() => Promise<PostgresServer>)
    | { readonly ok: false; readonly reason: string };
}

/** A running control channel: its URL (for `provide`) and how to shut it and its servers. */
export interface ControlChannel {
  readonly url: string;
  close(): Promise<void>;
}

type Reply = { status: number; body: unknown };

/**
 * A tiny HTTP endpoint on 127.0.0.1, run by the global setup, through which test workers
 * ask for Postgres servers and restarts (test files run in other processes and cannot
 * hold the Testcontainers handles). Routes, JSON in and out:
 * `POST /postgres` -> `{ id, adminUrl }`; `POST /postgres/<id>/restart`;
 * `DELETE /postgres/<id>`. The id `shared` names the run's shared server.
 * A path token keeps other local processes from poking it by accident.
 */
export async function startControlChannel(options: ControlChannelOptions): Promise<ControlChannel> {
  const token = randomBytes(12).toString('hex');
  const servers = new Map<string, PostgresServer>();
  let next = 0;

  async function handle(method: string, path: string): Promise<Reply> {
    if (method === 'POST' && path === '/postgres') {
      if (typeof options.dedicated !== 'function') {
        return { status: 409, body: { reason: options.dedicated.reason } };
      }
      const server = await options.dedicated();
      const id = `pg${++next}`;
      servers.set(id, server);
      return { status: 200, body: { id, adminUrl: server.adminUrl } };
    }
    const match = /^\/postgres\/([a-z0-9]+)(\/restart)?$/.exec(path);
    const id = match?.[1];
    if (!match || !id) return { status: 404, body: { reason: `no route ${method} ${path}` } };
    const server =
      id === 'shared' && 'restart' in options.shared ? options.shared : servers.get(id);
    if (!server) {
      const reason =
        id === 'shared' && 'reason' in options.shared ? options.shared.reason : `no server ${id}`;
      return { status: 409, body: { reason } };
    }
    if (method === 'POST' && match[2]) {
      await server.restart();
      return { status: 200, body: {} };
    }
    if (method === 'DELETE' && !match[2] && id !== 'shared') {
      servers.delete(id);
      await server.stop();
      return { status: 200, body: {} };
    }
    return { status: 404, body: { reason: `no route ${method} ${path}` } };
  }

  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const prefix = `/${token}`;
    const path = req.url?.startsWith(prefix) ? req.url.slice(prefix.length) : '';
    handle(req.method ?? 'GET', path)
      .catch(
        (error: unknown): Reply => ({
          status: 500,
          body: { error: error instanceof Error ? error.message : String(error) },
        }),
      )
      .then(({ status, body }) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${token}`,
    async close() {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await Promise.allSettled([...servers.values()].map((s) => s.stop()));
      servers.clear();
    },
  };
}
