import { eventHeaders, publishCommand } from '@agentwire/bus';
import { HEADERS, type Names } from '@agentwire/contracts';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { WorkItem } from './workload.ts';

const encoder = new TextEncoder();

/**
 * Publishes one workload item the way the runtime does: an event on its session's `ev`
 * subject with the bus's event headers, a command through the bus's `publishCommand`.
 * `msgIdSuffix` makes a deliberate repeat get past the broker's de-duplication, so the
 * worker sees it twice (for a command it must look like `:<attempt>`).
 */
export function publishWorkItem(
  js: JetStreamClient,
  n: Names,
  item: WorkItem,
  msgIdSuffix = '',
): Promise<unknown> {
  if (item.kind === 'event') {
    const h = eventHeaders(item.event, 0);
    h.set(HEADERS.msgId, `${item.event.id}${msgIdSuffix}`);
    return js.publish(
      n.eventSubject(item.event.sessionId),
      encoder.encode(JSON.stringify(item.event)),
      { headers: h },
    );
  }
  if (msgIdSuffix === '') return publishCommand(js, n, item.command);
  if (!msgIdSuffix.startsWith(':'))
    throw new Error(`msgIdSuffix ${msgIdSuffix} must start with ':'`);
  return publishCommand(js, n, item.command, { attempt: msgIdSuffix.slice(1) });
}

/**
 * Publishes items in order with up to `window` publishes in flight (one connection keeps
 * their order), resolving when the broker has acked them all.
 */
export async function publishAll(
  js: JetStreamClient,
  n: Names,
  items: readonly WorkItem[],
  options: { readonly window?: number; readonly msgIdSuffix?: string } = {},
): Promise<void> {
  const window = options.window ?? 256;
  for (let i = 0; i < items.length; i += window) {
    await Promise.all(
      items.slice(i, i + window).map((item) => publishWorkItem(js, n, item, options.msgIdSuffix)),
    );
  }
}
