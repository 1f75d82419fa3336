import { publishDeadLetter } from '@agentwire/bus';
import type { Names } from '@agentwire/contracts';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { DeadLetter } from './batch-consumer.ts';

/** Bytes of a poison message's body kept in its dead letter. */
const DEAD_LETTER_DATA_BYTES = 64 * 1024;

/**
 * The worker's dead-letter sink for one consumer: the bus's `publishDeadLetter` on
 * `<prefix>.dlq.<consumer>` (kept by the `<PREFIX>_DLQ` stream), awaited, so a message is
 * acked on its own stream only once its dead letter is stored.
 */
export function deadLetterTo(js: JetStreamClient, n: Names, consumer: string): DeadLetter {
  const subject = n.deadLetterSubject(consumer);
  return (msg, code, reason) =>
    publishDeadLetter(js, subject, msg, { code, reason }, DEAD_LETTER_DATA_BYTES);
}
