export {
  buildServiceApp,
  listenServiceApp,
  PROMETHEUS_CONTENT_TYPE,
  type Readiness,
  type ServiceAppOptions,
} from './build-service-app.ts';
export { ConfigError, type ConfigProblem, loadConfig } from './load-config.ts';
export {
  type RunningService,
  type RunServiceOptions,
  runService,
  type ServiceHost,
} from './run-service.ts';
export { noopServiceLogger, type ServiceLogger } from './service-logger.ts';
