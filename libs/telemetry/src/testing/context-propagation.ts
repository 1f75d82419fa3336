import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * Installs only what trace-context propagation needs (the AsyncLocalStorage context manager
 * and the W3C propagator) without starting the SDK: for tests, scripts and tools.
 * {@link startTelemetry} does this itself. Returns a function that uninstalls both.
 */
export function installContextPropagation(): () => void {
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return () => {
    context.disable();
    propagation.disable();
  };
}
