export { backendsUp } from './backends-up.ts';
export { backoffMs } from './backoff.ts';
export {
  BaseServiceConfig,
  DatabaseConfig,
  hasModelEndpoint,
  MODEL_ENDPOINT_REQUIRED,
  ModelProviderConfig,
  positiveInt,
  token,
} from './base-service-config.ts';
export { buildServiceApp, listenServiceApp, type Readiness } from './build-service-app.ts';
export { loadConfig } from './load-config.ts';
export { runServiceMain } from './run-service-main.ts';
export type { ServiceLogger } from './service-logger.ts';
export { type RequestServiceBase, startRequestService } from './start-request-service.ts';
