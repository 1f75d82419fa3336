import type { Names } from '@agentwire/contracts';
import { blobBucket, uploadBucket } from '../blob-store.ts';
import { deadLetterStream } from '../dead-letter-names.ts';

/** The NATS users of a deployment, one per role (DESIGN.md "Clusters and security"). */
export const NATS_ROLES = [
  'runtime',
  'persistence-worker',
  'projection',
  'title-sidecar',
  'query',
  'gateway',
  'frontend',
] as const;
export type NatsRole = (typeof NATS_ROLES)[number];

/** What one role may publish and subscribe to; everything else the server refuses. */
export interface RolePermissions {
  readonly publish: readonly string[];
  readonly subscribe: readonly string[];
  /** May answer the requests it received (its reply subjects), and nothing else that way. */
  readonly allowResponses: boolean;
}

/** The inbox prefix of a role's connection: replies to it arrive under `<prefix>.>`. */
export function roleInboxPrefix(role: string): string {
  return `_INBOX_${role}`;
}

/** The KV bucket of session owners (the gateway's tenants, 0146): `<prefix>_owners`. */
export function sessionOwnersBucket(n: Names): string {
  return n.leaseBucket.replace(/_leases$/, '_owners');
}

/** A tenant's own frontend user: the frontend role on the tenant's prefix (0146). */
export function tenantFrontendPermissions(tenantPrefix: Names, user: string): RolePermissions {
  return {
    publish: frontend(tenantPrefix),
    subscribe: [`${roleInboxPrefix(user)}.>`],
    allowResponses: false,
  };
}

const api = (op: string, streams: readonly string[], suffix = '') =>
  streams.map((s) => `$JS.API.${op}.${s}${suffix}`);

/** Creating, updating and reading the configuration of every provisioned stream. */
function provisioning(streams: readonly string[]): string[] {
  return [
    '$JS.API.INFO',
    ...api('STREAM.CREATE', streams),
    ...api('STREAM.UPDATE', streams),
    ...api('STREAM.INFO', streams),
  ];
}

/** Reading one stream with pull consumers (ordered or durable) and single-message gets. */
function reading(stream: string): string[] {
  return [
    '$JS.API.INFO',
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.*`,
    `$JS.API.CONSUMER.INFO.${stream}.*`,
    // Whether a shared durable exists, without a consumer info (docs/decisions/0250).
    `$JS.API.CONSUMER.NAMES.${stream}`,
    `$JS.API.CONSUMER.DELETE.${stream}.*`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
    `$JS.ACK.${stream}.>`,
  ];
}

/**
 * A frontend's view: follow sessions (an ordered consumer whose filter is one session, in
 * the create subject) and ask for operations and projections; never write a stream, a
 * bucket or a command. The 2.9 create subject carries the filter, so a consumer on another
 * subject tree is refused.
 */
function frontend(n: Names): string[] {
  const e = n.eventsStream;
  return [
    // Reading back a field offloaded to the blob store (docs/decisions/0162).
    ...reading(`OBJ_${blobBucket(n)}`),
    // Putting a file too large for its request in the uploads bucket (an import, 0241).
    ...provisioning([`OBJ_${uploadBucket(n)}`]),
    ...reading(`OBJ_${uploadBucket(n)}`),
    `$O.${uploadBucket(n)}.>`,
    '$JS.API.INFO',
    `$JS.API.STREAM.INFO.${e}`,
    `$JS.API.STREAM.MSG.GET.${e}`,
    `$JS.API.DIRECT.GET.${e}.${n.prefix}.session.*.>`,
    `$JS.API.CONSUMER.CREATE.${e}.*.${n.prefix}.session.*.>`,
    `$JS.API.CONSUMER.INFO.${e}.*`,
    `$JS.API.CONSUMER.DELETE.${e}.*`,
    `$JS.API.CONSUMER.MSG.NEXT.${e}.*`,
    n.runtimeOpen,
    n.runtimeOpsFilter,
    n.projectionGet,
    n.allQueriesFilter,
  ];
}

/**
 * The one table of NATS permissions (docs/decisions/0145): `deploy/nats/users.conf` is
 * generated from it (`pnpm nats-config`), and the permission tests read it. Subjects of
 * `n`'s prefix only; each role's replies come on its own inbox prefix.
 */
export function rolePermissions(n: Names): Readonly<Record<NatsRole, RolePermissions>> {
  const p = n.prefix;
  const lease = `KV_${n.leaseBucket}`;
  const all = [n.eventsStream, n.commandsStream, deadLetterStream(n), lease];
  const blobs = `OBJ_${blobBucket(n)}`;
  const inbox = (role: NatsRole) => `${roleInboxPrefix(role)}.>`;
  const table: Record<NatsRole, RolePermissions> = {
    runtime: {
      publish: [
        `${p}.session.*.>`,
        `${p}.persist.*`,
        `$KV.${n.leaseBucket}.*`,
        ...provisioning(all),
        // The blob store its large fields go to (docs/decisions/0162).
        ...provisioning([blobs]),
        ...reading(blobs),
        `$O.${blobBucket(n)}.>`,
        // Files frontends uploaded for an import (0241).
        ...provisioning([`OBJ_${uploadBucket(n)}`]),
        ...reading(`OBJ_${uploadBucket(n)}`),
        `$JS.API.STREAM.PURGE.${blobs}`,
        ...reading(n.eventsStream),
        `$JS.API.STREAM.PURGE.${n.eventsStream}`,
        `$JS.API.STREAM.MSG.GET.${lease}`,
        `$JS.API.DIRECT.GET.${lease}.>`,
        n.titlesGenerate,
        `${p}.rt.instance.*.ping`,
      ],
      subscribe: [
        inbox('runtime'),
        n.runtimeOpen,
        n.runtimeOpsFilter,
        `${p}.rt.instance.*.ping`,
        `${p}.confirm.*`,
      ],
      allowResponses: true,
    },
    'persistence-worker': {
      publish: [
        ...provisioning(all),
        ...reading(n.eventsStream),
        ...reading(n.commandsStream),
        ...reading(blobs),
        `${p}.confirm.*`,
        `${p}.dlq.*`,
      ],
      subscribe: [inbox('persistence-worker')],
      allowResponses: false,
    },
    projection: {
      publish: [
        ...provisioning(all),
        ...reading(n.eventsStream),
        `${p}.projection.members`,
        `${p}.projection.fwd.>`,
        `${p}.projection.applied.*`,
        `${p}.dlq.*`,
      ],
      subscribe: [
        inbox('projection'),
        n.projectionGet,
        `${p}.projection.members`,
        `${p}.projection.fwd.>`,
        `${p}.projection.applied.*`,
      ],
      allowResponses: true,
    },
    'title-sidecar': {
      // connectBus opens a JetStream manager, which reads the account info once.
      publish: ['$JS.API.INFO'],
      subscribe: [inbox('title-sidecar'), n.titlesGenerate],
      allowResponses: true,
    },
    // The read side (DESIGN.md "The read side"): answers `<p>.query.*`; reads the lease
    // bucket (a held session is not deleted), counts a session's pending commands (history
    // "as of N"), purges a deleted session's events, and stores an export too large for its
    // reply in the blob store (0241).
    query: {
      publish: [
        '$JS.API.INFO',
        ...reading(blobs),
        `$O.${blobBucket(n)}.>`,
        `$JS.API.STREAM.PURGE.${blobs}`,
        `$JS.API.STREAM.MSG.GET.${lease}`,
        `$JS.API.DIRECT.GET.${lease}.>`,
        `$JS.API.STREAM.PURGE.${n.eventsStream}`,
        `$JS.API.STREAM.INFO.${n.commandsStream}`,
        `$JS.API.STREAM.MSG.GET.${n.eventsStream}`,
        `$JS.API.DIRECT.GET.${n.eventsStream}.>`,
      ],
      subscribe: [inbox('query'), n.allQueriesFilter],
      allowResponses: true,
    },
    gateway: {
      publish: [
        ...frontend(n),
        `$KV.${sessionOwnersBucket(n)}.*`,
        ...provisioning([`KV_${sessionOwnersBucket(n)}`]),
        `$JS.API.STREAM.MSG.GET.KV_${sessionOwnersBucket(n)}`,
        `$JS.API.DIRECT.GET.KV_${sessionOwnersBucket(n)}.>`,
      ],
      subscribe: [inbox('gateway')],
      allowResponses: false,
    },
    frontend: { publish: frontend(n), subscribe: [inbox('frontend')], allowResponses: false },
  };
  const unique = (subjects: readonly string[]) => [...new Set(subjects)];
  return Object.fromEntries(
    NATS_ROLES.map((role) => {
      const r = table[role];
      return [role, { ...r, publish: unique(r.publish), subscribe: unique(r.subscribe) }];
    }),
  ) as unknown as Record<NatsRole, RolePermissions>;
}
