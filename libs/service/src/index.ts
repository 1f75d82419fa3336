export { backoffMs } from './backoff.ts';
export {
  BaseServiceConfig,
  DatabaseConfig,
  DEFAULT_DATABASE_URL,
  DEFAULT_NATS_URL,
  hasModelEndpoint,
  LOG_LEVELS,
  MODEL_ENDPOINT_REQUIRED,
  ModelProviderConfig,
  positiveInt,
  token,
} from './base-service-config.ts';
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
export {
  runServiceMain,
  type ServiceLifecycle,
  type ServiceMainContext,
  type ServiceMainLogger,
  type ServiceMainOptions,
} from './run-service-main.ts';
export { noopServiceLogger, type ServiceLogger } from './service-logger.ts';
