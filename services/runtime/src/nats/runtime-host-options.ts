import type { BlobOffload, StreamPublisher } from '@agentwire/bus';
import type { ModelSelection, Names } from '@agentwire/contracts';
import type { ResidencyOptions, TitleGenerationConfig } from '@agentwire/domain';
import type {
  CatalogModel,
  CheckpointStore,
  ContentHasher,
  IdSource,
  RuntimeClock,
  RuntimeLogger,
  SessionFeature,
  SessionSink,
  TitleGenerator,
  ToolDefinition,
  UsageRecorder,
  WorkspaceFiles,
} from '@agentwire/engine';
import type { ModelProvider } from '@agentwire/model';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ResidencyMetrics } from '../runtime-metrics.ts';
import type { StoreDb } from './session-loader.ts';

/** Dependencies and settings of `RuntimeHost`. */
export interface RuntimeHostOptions {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  /** Publishes the appended events (a `PublishPipeline` on `nc`: the hot path, R5.1). */
  readonly eventPublisher: StreamPublisher;
  readonly jsm: JetStreamManager;
  readonly kv: KV;
  readonly db: StoreDb;
  readonly names: Names;
  readonly instanceId: string;
  readonly host: string;
  readonly model: ModelProvider;
  readonly tools: readonly ToolDefinition[];
  readonly workspaceRoot: string;
  /** `@file` references and prompt templates are read from it (R12.1). */
  readonly workspace?: WorkspaceFiles;
  /** Where workspace checkpoints go (docs/decisions/0225); none are taken without it. */
  readonly checkpoints?: CheckpointStore;
  /** The configured models, `model` first (R7.4, docs/decisions/0224). */
  readonly models?: readonly CatalogModel[];
  /** The engine's features every session runs with (docs/decisions/0220). */
  readonly features?: readonly SessionFeature[];
  readonly clock: RuntimeClock;
  readonly ids: IdSource;
  readonly logger: RuntimeLogger;
  readonly usage: UsageRecorder;
  readonly leaseTtlMs: number;
  readonly permissionTimeoutMs: number;
  readonly confirmTimeoutMs: number;
  /** How long a turn waits out a broker outage before `broker_unavailable` (default 15 s). */
  readonly brokerOutageMs?: number;
  readonly maxPromptBytes: number;
  /** Residency limits (R11.1, R16.6). */
  readonly residency: ResidencyOptions;
  /** Title generation (R9.4-R9.10, flow 4); absent means off (R9.5). */
  readonly title?: {
    readonly config: TitleGenerationConfig;
    readonly generator: TitleGenerator;
    readonly model?: ModelSelection;
  };
  /** Extra subscribers attached to every resident session (R1.2). */
  readonly sinks?: readonly SessionSink[];
  /** Told of reclaims and loads (the `/metrics` endpoint's residency figures). */
  readonly residencyMetrics?: ResidencyMetrics;
  /** Digests of `model_request` chains (docs/decisions/0161). */
  readonly hasher?: ContentHasher;
  /**
   * The bound on every event and command body and the blob store its larger string fields
   * go to (docs/decisions/0162); absent, bodies go as they are.
   */
  readonly offload?: BlobOffload;
}
