export { createTestEnvironment, type TestEnvironment } from './environment.ts';
export {
  findNatsServer,
  freePort,
  type NatsCluster,
  type NatsServerProcess,
  natsServerSupport,
  startNatsCluster,
  startNatsServer,
} from './nats/index.ts';
export { postgresRestartSupport, restartPostgres } from './restart-postgres.ts';
export { seededRandom } from './seeded-random.ts';
export { type ServiceProcess, startServiceProcess } from './start-service-process.ts';
export { waitUntil } from './wait-until.ts';
