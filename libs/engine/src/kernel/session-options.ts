/** What a {@link RuntimeSession} is made of: where it starts from and its dependencies. */
import type { ModelSelection, SessionEvent, TitleSource } from '@agentwire/contracts';
import type { TitleGenerationConfig } from '@agentwire/domain';
import type { ModelMessage, ModelProvider } from '@agentwire/model';
import type { CatalogModel, SessionFeature } from './feature.ts';
import type {
  CheckpointStore,
  ContentHasher,
  IdSource,
  RuntimeClock,
  RuntimeLogger,
  SessionReplacements,
  TranscriptReader,
  WorkspaceFiles,
} from './ports.ts';
import type { LastRequest } from './request-chain.ts';
import type { RuntimeSession } from './runtime-session.ts';
import type { SessionEmitter } from './session-emitter.ts';
import type { EarlierInput } from './submission.ts';
import type { TitleGenerator } from './title-job.ts';
import type { ToolDefinition } from './tool-definition.ts';
import type { TranscriptWriter } from './transcript-writer.ts';
import type { EvictSealedTurn } from './transient-eviction.ts';

/** What a session starts from: fresh, or recovered from Postgres (R10.4). */
export interface SessionStart {
  /** True once the session row exists (R13.2: born lazily at the first prompt). */
  readonly persisted: boolean;
  readonly title: string | null;
  /** The stored title's source (R9.1); a `custom` one is never generated over (R9.3). */
  readonly titleSource?: TitleSource | null;
  readonly turnCount: number;
  readonly history: ModelMessage[];
  /** The last sealed turn whose transient events may still be retained. */
  readonly lastSealedTurnId?: string;
  /** Inputs accepted before this load (a retry of one is not a new input). */
  readonly earlierInputs?: ReadonlyMap<string, EarlierInput>;
  /** The stream's last main-turn `model_request`, rebuilt: the next one's base (0161). */
  readonly lastRequest?: LastRequest;
  /** The last event of each type the features recover from (`recoveryTypes`), in order. */
  readonly featureEvents?: readonly SessionEvent[];
  /** The session tree's current leaf and its parent (docs/decisions/0239); none when empty. */
  readonly leaf?: { readonly id: string; readonly parentId: string | null };
}

/** Dependencies of {@link RuntimeSession}. */
export interface RuntimeSessionOptions {
  readonly emitter: SessionEmitter;
  readonly writer: TranscriptWriter;
  readonly model: ModelProvider;
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  readonly clock: RuntimeClock;
  readonly ids: IdSource;
  readonly logger: RuntimeLogger;
  readonly cwd: string;
  readonly root: string;
  readonly permissionTimeoutMs: number;
  readonly maxSteps?: number;
  readonly start: SessionStart;
  readonly evictSealedTurn?: EvictSealedTurn;
  /** How long the first step waits for the user message's commit (flow 1). */
  readonly confirmTimeoutMs?: number;
  /** Inputs larger than this (UTF-8 bytes) are rejected `input_too_large` (R14.4). */
  readonly maxInputBytes?: number;
  /** R9.5: absent means off; `{}` turns title generation on. */
  readonly titleGeneration?: TitleGenerationConfig;
  /** The title sidecar (flow 4); without it no title is generated. */
  readonly titleGenerator?: TitleGenerator;
  /** `titleGeneration.modelSelection` (R9.6); the session's model when absent. */
  readonly titleModel?: ModelSelection;
  /** Digests of `model_request` chains (docs/decisions/0161); none without it. */
  readonly hasher?: ContentHasher;
  /** What submissions are normalised with (R12.1, docs/decisions/0220); none: plain prompts. */
  readonly features?: readonly SessionFeature[];
  /** The workspace `@file` references and prompt templates are read from (R12.1). */
  readonly workspace?: WorkspaceFiles;
  /**
   * The configured models, the session's starting one first (R7.4, docs/decisions/0224);
   * without them, `model` alone with default limits.
   */
  readonly models?: readonly CatalogModel[];
  /** Where workspace checkpoints go (docs/decisions/0225); none are taken without it. */
  readonly checkpoints?: CheckpointStore;
  /** The stored transcript, read back for the session tree's moves (0239). */
  readonly transcripts?: TranscriptReader;
  /** New sessions made from this one: a fork (0240). */
  readonly replacements?: SessionReplacements;
}
