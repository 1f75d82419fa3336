import { randomBytes } from 'node:crypto';
import { type JetStreamManager, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { waitUntil } from '../wait-until.ts';
import { freePort } from './free-port.ts';
import {
  type NatsServerOptions,
  type NatsServerProcess,
  startNatsServer,
} from './nats-server-process.ts';

/** Options of {@link startNatsCluster}. */
export interface NatsClusterOptions {
  /** Number of nodes (default 3: the smallest cluster that survives losing one). */
  readonly size?: number;
  /** `--cluster_name` (default `aw-cluster-<random>`). */
  readonly name?: string;
  /** Passed to every node (a users file, more flags); ports, names and routes are set here. */
  readonly node?: Pick<NatsServerOptions, 'configFile' | 'args' | 'binary' | 'timeoutMs'>;
  /** How long to wait for a JetStream meta leader after the nodes start (default 30 s). */
  readonly readyTimeoutMs?: number;
}

/** Where a replicated stream stands: its leader and whether each follower is current. */
export interface StreamPlacement {
  readonly leader: NatsServerProcess | undefined;
  readonly replicas: readonly {
    readonly node: NatsServerProcess | undefined;
    readonly current: boolean;
  }[];
}

/** A JetStream cluster of local `nats-server` processes on loopback. */
export interface NatsCluster {
  readonly name: string;
  readonly nodes: readonly NatsServerProcess[];
  /** Every node's client URL: the seed list clients connect with. */
  readonly urls: readonly string[];
  /** The node leading `stream` and the state of its replicas. */
  placement(stream: string): Promise<StreamPlacement>;
  /** Waits until `stream` has a leader and every replica is current (after a node returns). */
  waitForStream(stream: string, timeoutMs?: number): Promise<StreamPlacement>;
  /** Waits until every node is a JetStream peer: a stream of `size` replicas can be placed. */
  waitForJetStream(timeoutMs?: number): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Starts a JetStream cluster of `size` local `nats-server` processes, each with its own
 * client port, route port, `-sd` store and `--server_name`, sharing one `--cluster_name`
 * and the full `--routes` list, and resolves once every node is a JetStream peer (docs/decisions/0140).
 * Each node is a {@link NatsServerProcess}: SIGKILL one and start it again to test failover.
 */
export async function startNatsCluster(options: NatsClusterOptions = {}): Promise<NatsCluster> {
  const size = options.size ?? 3;
  const name = options.name ?? `aw-cluster-${randomBytes(3).toString('hex')}`;
  const ports = await distinctPorts(size * 2);
  const routePorts = ports.slice(size);
  const routes = routePorts.map((p) => `nats://127.0.0.1:${p}`);
  const started = await Promise.allSettled(
    ports.slice(0, size).map((port, i) =>
      startNatsServer({
        ...options.node,
        port,
        serverName: `${name}-n${i + 1}`,
        cluster: { name, port: routePorts[i] as number, routes },
      }),
    ),
  );
  const nodes = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.allSettled(nodes.map((n) => n.dispose()));
    throw failed.reason;
  }
  const urls = nodes.map((n) => n.url);
  const withJsm = async <T>(f: (jsm: JetStreamManager) => Promise<T>): Promise<T> => {
    const nc = await connect({ servers: urls, timeout: 3_000, reconnect: false });
    try {
      return await f(await jetstreamManager(nc, { timeout: 3_000 }));
    } finally {
      await nc.close();
    }
  };
  const placementOnce = (stream: string): Promise<StreamPlacement> =>
    withJsm(async (jsm) => {
      const info = (await jsm.streams.info(stream)).cluster;
      const byName = (n: string | undefined) => nodes.find((node) => node.serverName === n);
      return {
        leader: byName(info?.leader),
        replicas: (info?.replicas ?? []).map((r) => ({ node: byName(r.name), current: r.current })),
      };
    });
  const cluster: NatsCluster = {
    name,
    nodes,
    urls,
    placement: async (stream) => {
      // Right after a node dies the JetStream API may not answer until the cluster has
      // elected its meta leader again (seconds): ask again until it does, within a bound.
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          return await placementOnce(stream);
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    },
    async waitForStream(stream, timeoutMs = 30_000) {
      let last: StreamPlacement | undefined;
      await waitUntil(
        async () => {
          last = await placementOnce(stream).catch(() => undefined);
          return Boolean(last?.leader) && (last?.replicas ?? []).every((r) => r.current);
        },
        { timeoutMs, intervalMs: 200, what: `stream ${stream} led with every replica current` },
      );
      return last as StreamPlacement;
    },
    async waitForJetStream(timeoutMs = options.readyTimeoutMs ?? 30_000) {
      // A meta leader answers before every node has joined as a peer; a stream with one
      // replica per node is placed only once all have.
      const probe = `AW_CLUSTER_PROBE_${randomBytes(3).toString('hex')}`;
      await waitUntil(
        () =>
          withJsm(async (jsm) => {
            await jsm.streams.add({
              name: probe,
              subjects: [`${probe}.x`],
              storage: StorageType.Memory,
              num_replicas: size,
            });
            await jsm.streams.delete(probe);
          }).then(
            () => true,
            () => false,
          ),
        { timeoutMs, intervalMs: 200, what: `all ${size} nodes of ${name} as JetStream peers` },
      );
    },
    async dispose() {
      await Promise.allSettled(nodes.map((n) => n.dispose()));
    },
  };
  try {
    await cluster.waitForJetStream();
  } catch (error) {
    await cluster.dispose();
    throw error;
  }
  return cluster;
}

async function distinctPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
