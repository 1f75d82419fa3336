import type { Names } from '@agentwire/contracts';
import type { JetStreamManager } from '@nats-io/jetstream';
import { blobBucket } from './blob-store.ts';
import { deadLetterStream } from './dead-letter-names.ts';

/**
 * Deletes the streams `provision` makes for `n`: events, commands, dead letters and
 * the lease bucket's stream, and the blob bucket's the runtime makes (0162). One that is missing (or fails to go) is passed over, so a
 * test's clean-up can call it whatever it got to create.
 */
export async function deleteProvisioned(jsm: JetStreamManager, n: Names): Promise<void> {
  for (const stream of [
    n.eventsStream,
    n.commandsStream,
    deadLetterStream(n),
    `KV_${n.leaseBucket}`,
    `OBJ_${blobBucket(n)}`,
  ]) {
    await jsm.streams.delete(stream).catch(() => false);
  }
}
