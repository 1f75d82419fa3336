export { type CheckedUrls, checkServers } from './check-servers.ts';
export {
  createTestEnvironment,
  type TestEnvironment,
  type TestEnvironmentOptions,
} from './environment.ts';
export {
  DEBIAN_NATS_SERVER,
  findNatsServer,
  freePort,
  type NatsCluster,
  type NatsClusterMembership,
  type NatsClusterOptions,
  type NatsServerOptions,
  type NatsServerProcess,
  natsServerSupport,
  type StreamPlacement,
  startNatsCluster,
  startNatsServer,
} from './nats/index.ts';
export { PostgresControlError } from './postgres-control.ts';
export type { Capability } from './postgres-server.ts';
export type { HarnessInfo } from './provided-context.ts';
export { postgresRestartSupport, restartPostgres } from './restart-postgres.ts';
export { seededRandom } from './seeded-random.ts';
export {
  readServerSettings,
  type ServerMode,
  type ServerSettings,
} from './server-settings.ts';
export {
  type ServerKind,
  ServerUnreachableError,
  type UnreachableServer,
} from './server-unreachable-error.ts';
export {
  type ServiceProcess,
  type StartServiceOptions,
  startServiceProcess,
} from './start-service-process.ts';
export { type WaitUntilOptions, waitUntil } from './wait-until.ts';
