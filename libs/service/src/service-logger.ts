/**
 * The logging surface the service kit needs: the subset of pino's `Logger` used here, so a
 * pino logger from `@agentwire/telemetry` fits as is and tests can pass a recorder.
 */
export interface ServiceLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that drops everything (the default when none is given). */
export const noopServiceLogger: ServiceLogger = {
  info() {},
  warn() {},
  error() {},
};
