export { DEBIAN_NATS_SERVER, findNatsServer, natsServerSupport } from './find-nats-server.ts';
export { freePort } from './free-port.ts';
export {
  type NatsCluster,
  type NatsClusterOptions,
  type StreamPlacement,
  startNatsCluster,
} from './nats-cluster.ts';
export {
  type NatsClusterMembership,
  type NatsServerOptions,
  type NatsServerProcess,
  startNatsServer,
} from './nats-server-process.ts';
