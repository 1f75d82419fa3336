// Test kit of @agentwire/store: for tests only, never imported by production code.
export { canonicalDump } from '../canonical-dump.ts';
export { applyDurableEvent } from '../durable-events.ts';
export { listEntries } from '../entries-repository.ts';
export { getInput } from '../ledger-repository.ts';
export { applyPersistenceCommand } from '../persistence-commands.ts';
export { isDurableEvent } from './is-durable-event.ts';
