/**
 * The bus's outcome checks, importable without NATS (`@agentwire/bus/outcomes`): a frontend
 * that only tells a failure from a reply (the CLI's commands) loads them without the
 * client, so that `agentwire --help` and a usage error do not load the NATS client first.
 */
import type { RuntimeFailure, RuntimeResult } from './runtime-client.ts';

export { BusError, type ExpiredBase, isBaseExpired } from './bus-error.ts';

/** True when a result is a {@link RuntimeFailure}. */
export function isRuntimeFailure<T>(result: RuntimeResult<T>): result is RuntimeFailure {
  return typeof result === 'object' && result !== null && (result as { ok?: unknown }).ok === false;
}
