import { sessionOwnersBucket } from '@agentwire/bus';
import type { Names } from '@agentwire/contracts';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

/** Which tenant each session belongs to (the one that created it). */
export interface SessionOwners {
  ownerOf(sessionId: string): Promise<string | undefined>;
  /** Records `tenant` as the owner unless one exists; answers the owner after the call. */
  claim(sessionId: string, tenant: string): Promise<string>;
}

/**
 * Session owners in a NATS KV bucket (created here, with `replicas`): the gateways share
 * it, and a claim is an atomic `create`, so two tenants cannot both own one id.
 */
export async function openSessionOwners(
  nc: NatsConnection,
  n: Names,
  replicas: number,
): Promise<SessionOwners> {
  const kv: KV = await new Kvm(nc).create(sessionOwnersBucket(n), { history: 1, replicas });
  const ownerOf = async (sessionId: string) => {
    const entry = await kv.get(sessionId);
    return entry === null || entry.operation !== 'PUT' ? undefined : entry.string();
  };
  return {
    ownerOf,
    async claim(sessionId, tenant) {
      try {
        await kv.create(sessionId, tenant);
        return tenant;
      } catch (error) {
        const owner = await ownerOf(sessionId);
        if (owner === undefined) throw error;
        return owner;
      }
    },
  };
}
