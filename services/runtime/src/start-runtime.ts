import { hostname } from 'node:os';
import {
  type BlobOffload,
  BlobStore,
  type BusConnection,
  connectBus,
  PublishPipeline,
  provision,
} from '@agentwire/bus';
import { names as namesOf } from '@agentwire/contracts';
import { builtinFeatures, type CatalogModel, type UsageRecorder } from '@agentwire/engine';
import {
  createOpenAiCompatibleProvider,
  createScriptedProvider,
  type ModelProvider,
} from '@agentwire/model';
import { createDatabase } from '@agentwire/store';
import type { Logger } from '@agentwire/telemetry';
import { Kvm } from '@nats-io/kv';
import type { RuntimeConfig } from './config.ts';
import { eventBound } from './event-bound.ts';
import { RuntimeHost, type RuntimeHostOptions } from './nats/runtime-host.ts';
import { NatsTitleGenerator } from './nats/title-client.ts';
import { randomIds } from './random-ids.ts';
import type { ResidencyMetrics } from './runtime-metrics.ts';
import { sha256Hasher } from './sha256-hasher.ts';
import { uploadThread } from './tools/checkpoint-upload-worker.ts';
import { createWorkspaceCheckpoints } from './tools/workspace-checkpoints.ts';
import { createWorkspaceFiles } from './tools/workspace-files.ts';
import { createWorkspaceTools } from './tools/workspace-tools.ts';

/** A started runtime: its host and how to stop everything it opened. */
export interface StartedRuntime {
  readonly host: RuntimeHost;
  readonly instanceId: string;
  readonly bus: BusConnection;
  /** The pool cold recovery reads through (readiness probes it). */
  readonly db: ReturnType<typeof createDatabase>;
  stop(): Promise<void>;
}

/** Builds one model of the configuration: the scripted provider or an endpoint's model. */
function providerOf(
  config: RuntimeConfig,
  kind: 'scripted' | 'openai-compatible',
  modelId?: string,
): ModelProvider {
  if (kind === 'openai-compatible') {
    return createOpenAiCompatibleProvider({
      baseUrl: config.AW_MODEL_BASE_URL ?? '',
      modelId: modelId ?? config.AW_MODEL_ID ?? '',
      ...(config.AW_MODEL_API_KEY === undefined ? {} : { apiKey: config.AW_MODEL_API_KEY }),
    });
  }
  return createScriptedProvider({
    defaultScenario: config.AW_SCRIPTED_SCENARIO,
    ...(modelId === undefined ? {} : { modelId }),
    ...(config.AW_SCRIPTED_CHUNK_DELAY_MS === undefined
      ? {}
      : { chunkDelayMs: config.AW_SCRIPTED_CHUNK_DELAY_MS }),
    ...(config.AW_SCRIPTED_CONTEXT_LIMIT === undefined
      ? {}
      : { contextLimit: config.AW_SCRIPTED_CONTEXT_LIMIT }),
  });
}

/**
 * The models sessions may use (R7.4, docs/decisions/0224): the configured one first, with
 * `AW_MODEL_CONTEXT_WINDOW` and `AW_MODEL_OUTPUT_LIMIT`, then those of `AW_MODELS`.
 */
function catalogOf(config: RuntimeConfig): CatalogModel[] {
  const first = providerOf(config, config.AW_MODEL_PROVIDER);
  const catalog: CatalogModel[] = [
    {
      selection: { providerId: first.providerId, modelId: first.modelId },
      contextWindow: config.AW_MODEL_CONTEXT_WINDOW,
      outputLimit: config.AW_MODEL_OUTPUT_LIMIT,
      provider: first,
    },
  ];
  for (const entry of config.AW_MODELS) {
    const slash = entry.model.indexOf('/');
    const kind = entry.model.slice(0, slash) as 'scripted' | 'openai-compatible';
    const provider = providerOf(config, kind, entry.model.slice(slash + 1));
    const selection = { providerId: provider.providerId, modelId: provider.modelId };
    if (
      catalog.some(
        (m) =>
          m.selection.providerId === selection.providerId &&
          m.selection.modelId === selection.modelId,
      )
    )
      continue;
    catalog.push({
      selection,
      contextWindow: entry.contextWindow,
      outputLimit: entry.outputLimit,
      provider,
    });
  }
  return catalog;
}

/** Title generation settings of the host (flow 4). */
function titleOptions(config: RuntimeConfig, bus: BusConnection) {
  const [providerId = '', ...rest] = (config.AW_TITLE_MODEL ?? '').split('/');
  return {
    config: {},
    generator: new NatsTitleGenerator({
      nc: bus.nc,
      names: namesOf(config.AW_PREFIX),
      timeoutMs: config.AW_TITLE_REQUEST_TIMEOUT_MS,
    }),
    ...(config.AW_TITLE_MODEL === undefined
      ? {}
      : { model: { providerId, modelId: rest.join('/') } }),
  };
}

/**
 * Connects, provisions idempotently (streams and the lease bucket with its TTL), and starts
 * the host's subscriptions. Used by `main.ts` and by in-process tests and benches;
 * `wrapHost` lets those wrap one of the host's connections (a stream manager that fails
 * on purpose, say) before the host starts.
 */
export async function startRuntime(
  config: RuntimeConfig,
  logger: Logger,
  usage: UsageRecorder,
  extra: {
    readonly wrapHost?: ((options: RuntimeHostOptions) => RuntimeHostOptions) | undefined;
    readonly residencyMetrics?: ResidencyMetrics;
  } = {},
): Promise<StartedRuntime> {
  const wrapHost = extra.wrapHost ?? ((o: RuntimeHostOptions) => o);
  const instanceId = config.AW_INSTANCE_ID ?? randomIds.newId('rt');
  const names = namesOf(config.AW_PREFIX);
  const bus = await connectBus({
    servers: config.NATS_URL,
    auth: config,
    name: `runtime-${instanceId}`,
    logger,
    noAsyncTraces: true,
  });
  let offload: BlobOffload;
  try {
    const maxBytes = eventBound(config.AW_MAX_EVENT_BYTES, bus.nc.info?.max_payload);
    await provision(bus.nc, names, {
      leaseTtlMs: config.AW_LEASE_TTL_MS,
      replicas: config.AW_REPLICAS,
    });
    const store = BlobStore.create(bus.nc, names, { replicas: config.AW_REPLICAS });
    await store.ready();
    offload = { store, maxBytes };
  } catch (err) {
    await bus.close();
    throw err;
  }
  const kv = await new Kvm(bus.nc).open(names.leaseBucket);
  const db = createDatabase(config.DATABASE_URL, { poolSize: 4, applicationName: 'runtime' });
  const eventPublisher = new PublishPipeline(bus.nc, { inboxPrefix: bus.inboxPrefix });
  const catalog = catalogOf(config);
  // Checkpoint contents go to the object store from a thread of their own (0244).
  const uploads = uploadThread(
    {
      servers: config.NATS_URL,
      auth: {
        NATS_USER: config.NATS_USER,
        NATS_PASSWORD: config.NATS_PASSWORD,
        NATS_NKEY_SEED: config.NATS_NKEY_SEED,
        NATS_CREDS_FILE: config.NATS_CREDS_FILE,
        NATS_INBOX_PREFIX: config.NATS_INBOX_PREFIX,
      },
      name: `runtime-${instanceId}-uploads`,
      prefix: config.AW_PREFIX,
      replicas: config.AW_REPLICAS,
    },
    logger,
  );
  const host = new RuntimeHost(
    wrapHost({
      nc: bus.nc,
      js: bus.js,
      eventPublisher,
      jsm: bus.jsm,
      kv,
      db,
      names,
      instanceId,
      host: hostname(),
      model: catalog[0]?.provider ?? providerOf(config, config.AW_MODEL_PROVIDER),
      models: catalog,
      tools: createWorkspaceTools({
        root: config.AW_WORKSPACE_ROOT,
        envAllow: config.AW_TOOL_ENV_ALLOW,
        commandTimeoutMs: config.AW_TOOL_TIMEOUT_MS,
        maxOutputBytes: config.AW_TOOL_OUTPUT_BYTES,
      }),
      workspaceRoot: config.AW_WORKSPACE_ROOT,
      workspace: createWorkspaceFiles({ root: config.AW_WORKSPACE_ROOT }),
      features: builtinFeatures(
        config.AW_COMPACT_AT === undefined ? {} : { compactAt: config.AW_COMPACT_AT },
      ),
      checkpoints: createWorkspaceCheckpoints({
        root: config.AW_WORKSPACE_ROOT,
        blobs: offload.store,
        uploads,
        maxFileBytes: config.AW_CHECKPOINT_MAX_FILE_BYTES,
        maxFiles: config.AW_CHECKPOINT_MAX_FILES,
      }),
      clock: { now: () => Date.now() },
      ids: randomIds,
      hasher: sha256Hasher,
      offload,
      logger,
      usage,
      leaseTtlMs: config.AW_LEASE_TTL_MS,
      permissionTimeoutMs: config.AW_PERMISSION_TIMEOUT_MS,
      confirmTimeoutMs: config.AW_CONFIRM_TIMEOUT_MS,
      brokerOutageMs: config.AW_BROKER_OUTAGE_MS,
      maxPromptBytes: config.AW_MAX_PROMPT_BYTES,
      ...(config.AW_TITLE_GENERATION === 'on' ? { title: titleOptions(config, bus) } : {}),
      residency: {
        target: config.AW_RESIDENT_TARGET,
        highWater: config.AW_RESIDENT_HIGH_WATER,
        idleTimeoutMs: config.AW_RESIDENT_IDLE_MS,
      },
      ...(extra.residencyMetrics === undefined ? {} : { residencyMetrics: extra.residencyMetrics }),
    }),
  );
  await host.start();
  logger.info({ instanceId, prefix: names.prefix }, 'runtime accepting');
  return {
    host,
    instanceId,
    bus,
    db,
    async stop() {
      await host.stop();
      await uploads.close().catch((err: unknown) => {
        logger.warn({ err }, 'checkpoint uploads not all stored at stop');
      });
      eventPublisher.close();
      await bus.close();
      await db.destroy();
    },
  };
}
