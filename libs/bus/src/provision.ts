import type { Names } from '@agentwire/contracts';
import {
  DiscardPolicy,
  JetStreamApiError,
  type JetStreamManager,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
  type StreamInfo,
} from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { nanos } from '@nats-io/transport-node';
import { BusError } from './bus-error.ts';
import { deadLetterFilter, deadLetterStream } from './dead-letter-names.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Options of {@link provision}; every field has a default. */
export interface ProvisionOptions {
  /** `max_age` of the events stream, ms (default 7 days). 0 keeps events forever. */
  readonly eventsMaxAgeMs?: number;
  /** De-duplication window of `Nats-Msg-Id` on events and commands, ms (default 2 min). */
  readonly duplicateWindowMs?: number;
  /** `max_age` of dead letters, ms (default 30 days). */
  readonly deadLetterMaxAgeMs?: number;
  /** Bucket-level TTL of the lease KV, ms (default 30 s; NATS 2.9 has no per-key TTL). */
  readonly leaseTtlMs?: number;
  /** Largest message the streams accept, bytes (default: the server's max_payload). */
  readonly maxMessageBytes?: number;
  /**
   * Replicas of every stream and of the lease bucket (`AW_REPLICAS`, default 1): 3 on a
   * three-node JetStream cluster. Existing streams and the bucket are moved to it in place
   * (docs/decisions/0143).
   */
  readonly replicas?: number;
}

/** What {@link provision} ensured exists. */
export interface ProvisionResult {
  readonly eventsStream: string;
  readonly commandsStream: string;
  readonly deadLetterStream: string;
  readonly leaseBucket: string;
}

const STREAM_NOT_FOUND = 10059;
const STREAM_NAME_IN_USE = 10058;

/** The stream configurations {@link provision} applies (exported for tests and docs). */
function streamConfigs(n: Names, options: ProvisionOptions = {}): StreamConfig[] {
  const dup = nanos(options.duplicateWindowMs ?? 2 * 60 * 1000);
  const size =
    options.maxMessageBytes === undefined ? {} : { max_msg_size: options.maxMessageBytes };
  const common = {
    storage: StorageType.File,
    num_replicas: options.replicas ?? 1,
    discard: DiscardPolicy.Old,
  };
  const events = {
    ...common,
    ...size,
    name: n.eventsStream,
    subjects: [n.eventsStreamSubject],
    retention: RetentionPolicy.Limits,
    max_age: nanos(options.eventsMaxAgeMs ?? 7 * DAY_MS),
    duplicate_window: dup,
    deny_delete: false,
    deny_purge: false,
    allow_rollup_hdrs: false,
  };
  const commands = {
    ...common,
    ...size,
    name: n.commandsStream,
    subjects: [n.allCommandsFilter],
    retention: RetentionPolicy.Workqueue,
    duplicate_window: dup,
  };
  const dlq = {
    ...common,
    name: deadLetterStream(n),
    subjects: [deadLetterFilter(n)],
    retention: RetentionPolicy.Limits,
    max_age: nanos(options.deadLetterMaxAgeMs ?? 30 * DAY_MS),
  };
  return [events, commands, dlq] as StreamConfig[];
}

/**
 * Creates or updates, idempotently, the events stream, the commands work queue, the
 * dead-letter stream and the lease bucket of `n`'s prefix (DESIGN.md "Subjects, streams,
 * buckets"; R13 for the leases). Safe to run twice and from several processes at once:
 * a creation race ends in an update of the same configuration.
 */
export async function provision(
  nc: NatsConnection,
  n: Names,
  options: ProvisionOptions = {},
): Promise<ProvisionResult> {
  const replicas = options.replicas ?? 1;
  if (replicas > 1 && nc.info?.cluster === undefined) {
    // NATS 2.9 refuses a new R3 stream here but quietly accepts the update of an old one.
    throw new BusError(
      `cannot give ${n.prefix}'s streams ${replicas} replicas: the server ${nc.getServer()} ` +
        `is not part of a cluster. One NATS server holds 1 replica (AW_REPLICAS=1)`,
      { code: 'provision_replicas' },
    );
  }
  const jsm = await jetstreamManager(nc);
  for (const config of streamConfigs(n, options)) {
    await withReplicaReason(config.name, config.num_replicas, () => ensureStream(jsm, config));
  }
  await withReplicaReason(n.leaseBucket, replicas, () =>
    ensureLeaseBucket(nc, jsm, n.leaseBucket, options.leaseTtlMs ?? 30_000, replicas),
  );
  return {
    eventsStream: n.eventsStream,
    commandsStream: n.commandsStream,
    deadLetterStream: deadLetterStream(n),
    leaseBucket: n.leaseBucket,
  };
}

async function ensureStream(jsm: JetStreamManager, config: StreamConfig): Promise<StreamInfo> {
  const existing = await streamInfo(jsm, config.name);
  if (existing === null) {
    try {
      return await jsm.streams.add(config);
    } catch (error) {
      if (!(error instanceof JetStreamApiError) || error.code !== STREAM_NAME_IN_USE) throw error;
      // Another process created it first, with a different config (or a different
      // version of this one): fall through to the update path.
    }
  } else if (!differs(existing.config, config)) {
    return existing;
  }
  const current = await streamInfo(jsm, config.name);
  if (
    current !== null &&
    (current.config.retention !== config.retention || current.config.storage !== config.storage)
  ) {
    throw new BusError(
      `stream ${config.name} exists with another retention or storage; it cannot be updated in place`,
      {
        code: 'provision_conflict',
      },
    );
  }
  const { name, retention: _r, storage: _s, ...update } = config;
  return jsm.streams.update(name, update);
}

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return null;
    throw error;
  }
}

function differs(current: StreamConfig, wanted: StreamConfig): boolean {
  const keys = Object.keys(wanted) as (keyof StreamConfig)[];
  return keys.some((key) => JSON.stringify(current[key]) !== JSON.stringify(wanted[key]));
}

async function ensureLeaseBucket(
  nc: NatsConnection,
  jsm: JetStreamManager,
  bucket: string,
  ttlMs: number,
  replicas: number,
) {
  const kv = await new Kvm(nc).create(bucket, { history: 1, ttl: ttlMs, replicas });
  const status = await kv.status();
  const info = await jsm.streams.info(status.streamInfo.config.name);
  if (info.config.max_age !== nanos(ttlMs) || info.config.num_replicas !== replicas) {
    // The broker refuses a duplicate window longer than the age limit: shorten both.
    const duplicateWindow = Math.min(info.config.duplicate_window ?? nanos(ttlMs), nanos(ttlMs));
    await jsm.streams.update(info.config.name, {
      ...info.config,
      max_age: nanos(ttlMs),
      duplicate_window: duplicateWindow,
      num_replicas: replicas,
    });
  }
}

/** JetStream API codes that mean "not this many replicas here". */
const REPLICA_ERRORS = new Set([
  10074, // replicas > 1 not supported in non-clustered mode
  10023, // insufficient resources
  10005, // no suitable peers for placement (fewer JetStream servers than replicas)
]);

/**
 * Runs one creation or update and turns the server's refusal to place `replicas` copies
 * into a `provision_replicas` error that names the stream and what to do; the stream is
 * left as it was.
 */
async function withReplicaReason<T>(
  name: string,
  replicas: number | undefined,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof JetStreamApiError) || !REPLICA_ERRORS.has(error.code)) throw error;
    throw new BusError(
      `cannot give ${name} ${replicas} replicas: ${error.message}. One NATS server holds ` +
        `1 replica (AW_REPLICAS=1); ${replicas} need a JetStream cluster of at least ` +
        `${replicas} servers`,
      { code: 'provision_replicas', cause: error },
    );
  }
}
