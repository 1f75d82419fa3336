/**
 * The raw floor of SSE fanout on this machine (bench group `gateway`, gateway-fanout.ts): a
 * process that does only what fanout cannot avoid. It subscribes to one session's subject
 * on core NATS (`FLOOR_SUBJECT`) and, for each message, builds one SSE frame
 * (`data: {"fromSeq":n,"toSeq":n,"events":[<payload>]}`) as one HTTP/1.1 chunk and writes it
 * to every open `GET` response's socket: one write of one shared buffer per client, the
 * gateway's own write (sse-stream.ts), without its follower, its log, its schema, its drain
 * handling or its routes. Logs `{"msg":"http listening","port":N}` once listening.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { HEADERS } from '@agentwire/contracts';
import { connect } from '@nats-io/transport-node';

const subject = process.env.FLOOR_SUBJECT;
if (subject === undefined) throw new Error('FLOOR_SUBJECT is not set');
const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const sockets = new Set<Socket>();

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(': following after 0\n\n');
  const socket = req.socket;
  sockets.add(socket);
  res.on('close', () => sockets.delete(socket));
});

const prefixBytes = (n: string) => Buffer.from(`data: {"fromSeq":${n},"toSeq":${n},"events":[`);
const suffix = Buffer.from(']}\n\n');

nc.subscribe(subject, {
  callback: (_err, msg) => {
    const seq = msg.headers?.get(HEADERS.sequence) ?? '0';
    const body = Buffer.concat([prefixBytes(seq), msg.data, suffix]);
    const head = Buffer.from(`${body.length.toString(16)}\r\n`);
    const chunk = Buffer.concat([head, body, Buffer.from('\r\n')]);
    for (const socket of sockets) socket.write(chunk);
  },
});
await nc.flush();

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  console.log(JSON.stringify({ msg: 'http listening', port }));
});

process.once('SIGTERM', () => {
  for (const socket of sockets) socket.destroy();
  server.close();
  void nc.close().then(() => process.exit(0));
});
