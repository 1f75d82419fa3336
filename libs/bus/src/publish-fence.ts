import { HEADERS } from '@agentwire/contracts';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { BusError } from './bus-error.ts';
import { asFenced } from './publish-event.ts';
import type { StreamPublisher } from './publish-pipeline.ts';

/** Outcome of {@link publishFenceMarker}. */
export type FenceMarkerResult =
  /** Stored: every writer that expected the subject's earlier last sequence is now refused. */
  | { readonly kind: 'ok'; readonly streamSequence: number }
  /** Another writer stored something on the subject after the taker read its fence. */
  | { readonly kind: 'fenced'; readonly actualLastSequence?: number };

/** Options of {@link publishFenceMarker}. */
export interface FenceMarkerOptions {
  /** The stream sequence of the subject's last message when the taker read it (0: none). */
  readonly expectedLastSubjectSequence: number;
  /** The instance setting the fence, carried in `Aw-Fence`. */
  readonly owner: string;
  /** The session's last number when the fence was set, carried in `Aw-Fence-After`. */
  readonly after: number;
}

/**
 * Closes `subject` to every earlier writer (docs/decisions/0110): an empty message, with no
 * number and no event, fenced on the subject's last sequence as the taker read it. NATS 2.9
 * fences one subject per publish, and a session spans `ev` and one `tx` subject per turn; a
 * runtime taking a session over writes one marker on each `tx` subject the previous owner
 * may still write, before its first event on `ev`. Followers skip markers (`Aw-Fence`).
 */
export async function publishFenceMarker(
  js: StreamPublisher,
  subject: string,
  options: FenceMarkerOptions,
): Promise<FenceMarkerResult> {
  const h = natsHeaders();
  h.set(HEADERS.fence, options.owner);
  h.set(HEADERS.fenceAfter, String(options.after));
  try {
    const ack = await js.publish(subject, new Uint8Array(0), {
      headers: h,
      expect: { lastSubjectSequence: options.expectedLastSubjectSequence },
    });
    return { kind: 'ok', streamSequence: ack.seq };
  } catch (error) {
    const fenced = asFenced(error);
    if (fenced !== null) return fenced;
    throw new BusError(`publishing a fence marker on ${subject} failed`, {
      code: 'publish_failed',
      retryable: true,
      cause: error,
    });
  }
}

/** True for a writer's fence marker (no event: followers and readers skip it). */
export function isFenceMarker(headers: { get(name: string): string } | undefined): boolean {
  return (headers?.get(HEADERS.fence) ?? '') !== '';
}
