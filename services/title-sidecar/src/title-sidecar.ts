import { performance } from 'node:perf_hooks';
import { names, TITLE_QUEUE_GROUP, type TitleReply } from '@agentwire/contracts';
import { type RequestServiceBase, startRequestService } from '@agentwire/service';
import { type Logger, noopLogger } from '@agentwire/telemetry';
import type { Msg } from '@nats-io/transport-node';
import { type Tracer, trace } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import type { TitleSidecarConfig } from './config.ts';
import { decodeTitleRequest } from './decode-title-request.ts';
import { generateTitle } from './generate-title.ts';
import { createTitleMetrics, outcomeOf, type TitleMetrics } from './title-metrics.ts';
import { createTitleModels, type TitleModels } from './title-models.ts';
import { parseTraceparent, withTitleSpan } from './title-span.ts';
import { pgTitleStore } from './title-store.ts';

/** Service name: logs, metrics resource, `/healthz`. */
export const TITLE_SIDECAR = 'title-sidecar';

/** Collaborators of {@link startTitleSidecar}; every one has a default. */
export interface TitleSidecarDeps {
  readonly logger?: Logger;
  readonly tracer?: Tracer;
  /** Defaults to {@link createTitleModels} over the config's `AW_MODEL_*`. */
  readonly models?: TitleModels;
  readonly now?: () => number;
}

/** A running title sidecar instance. */
export interface TitleSidecar {
  readonly instanceId: string;
  /** Bound HTTP port of `/healthz`, `/readyz`, `/metrics`. */
  readonly port: number;
  readonly app: FastifyInstance;
  readonly metrics: TitleMetrics;
  /** Requests being handled now. */
  inFlight(): number;
  /** Requests this instance answered since it started. */
  answered(): number;
  /** Drains (DESIGN.md "Processes"): stop taking requests, finish in-flight ones, close. */
  stop(): Promise<void>;
}

/**
 * Starts one title sidecar instance (DESIGN.md flow 4, R9): serves the operational HTTP
 * endpoints, connects to NATS and Postgres (running the store's migrations, safe from
 * several processes), and answers `<prefix>.titles.generate` in the `title-sidecar` queue
 * group, so that every instance with the same prefix shares the requests.
 */
export async function startTitleSidecar(
  config: TitleSidecarConfig,
  deps: TitleSidecarDeps = {},
): Promise<TitleSidecar> {
  const logger = deps.logger ?? noopLogger;
  const tracer = deps.tracer ?? trace.getTracer(TITLE_SIDECAR);
  const instanceId = config.AW_INSTANCE_ID ?? `${TITLE_SIDECAR}-${process.pid}`;
  let base: RequestServiceBase | undefined;
  let answered = 0;
  const metrics = createTitleMetrics(TITLE_SIDECAR, () => base?.inFlight() ?? 0);
  const handler = ({ db }: { db: Parameters<typeof pgTitleStore>[0] }) => {
    const generateDeps = {
      models: deps.models ?? createTitleModels(config),
      store: pgTitleStore(db),
      timeoutMs: config.AW_TITLE_TIMEOUT_MS,
      now: deps.now ?? Date.now,
      storeRetry: {
        budgetMs: config.AW_TITLE_STORE_RETRY_MS,
        sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
        onRetry: (err: unknown, attempt: number, delayMs: number) =>
          logger.warn({ err, attempt, delayMs }, 'title store failure; retrying'),
      },
    };
    const handle = async (msg: Msg): Promise<void> => {
      const started = performance.now();
      const reply = await answer(msg, config, generateDeps, tracer);
      const seconds = (performance.now() - started) / 1000;
      metrics.record(reply, seconds);
      answered += 1;
      logReply(logger, reply, seconds);
      if (msg.reply === undefined || msg.reply === '') {
        logger.warn({ sessionId: reply.sessionId }, 'title request without a reply subject');
        return;
      }
      msg.respond(JSON.stringify(reply));
    };
    return handle;
  };
  const started = await startRequestService({
    name: TITLE_SIDECAR,
    instanceId,
    config,
    logger,
    metricsText: () => metrics.registry.render(),
    subject: names(config.AW_PREFIX).titlesGenerate,
    queue: TITLE_QUEUE_GROUP,
    what: 'title sidecar',
    handler,
  });
  base = started;
  return {
    instanceId,
    port: started.port,
    app: started.app,
    metrics,
    inFlight: () => started.inFlight(),
    answered: () => answered,
    async stop() {
      await started.stop();
      await metrics.registry.shutdown();
    },
  };
}

async function answer(
  msg: Msg,
  config: TitleSidecarConfig,
  deps: Parameters<typeof generateTitle>[1],
  tracer: Tracer,
): Promise<TitleReply> {
  const started = deps.now();
  const decoded = decodeTitleRequest(msg.data, { maxBytes: config.AW_TITLE_MAX_REQUEST_BYTES });
  const header = msg.headers?.get('traceparent');
  const caller = parseTraceparent(
    header !== undefined && header !== ''
      ? header
      : decoded.ok
        ? decoded.request.traceparent
        : undefined,
  );
  return withTitleSpan(tracer, caller, async () => {
    if (decoded.ok) return generateTitle(decoded.request, deps);
    const { ok: _ok, ...refusal } = decoded;
    return { ok: false, ...refusal, durationMs: Math.max(0, deps.now() - started) };
  });
}

function logReply(logger: Logger, reply: TitleReply, seconds: number): void {
  const fields = {
    sessionId: reply.sessionId,
    outcome: outcomeOf(reply),
    durationMs: Math.round(seconds * 1000),
  };
  if (reply.ok) {
    logger.info({ ...fields, applied: reply.applied, reason: reply.reason }, 'title answered');
  } else {
    logger.warn(
      { ...fields, code: reply.error.code, message: reply.error.message },
      'title refused',
    );
  }
}
