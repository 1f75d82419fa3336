import { connectBus } from '@agentwire/bus';
import { names, TitleReply, type TitleRequest } from '@agentwire/contracts';
import { firstInputTitle } from '@agentwire/domain';
import { type createDatabase, ensureSession, getSession } from '@agentwire/store';

type Db = ReturnType<typeof createDatabase>;

/**
 * A NATS client that sends title requests (tests and demos).
 *
 * @internal Exported for its tests.
 */
export interface TitleClient {
  /** Sends a request (an object is JSON-encoded, bytes go as they are) and parses the reply. */
  request(body: TitleRequest | Record<string, unknown> | Uint8Array | string): Promise<TitleReply>;
  close(): Promise<void>;
}

/** Connects a {@link TitleClient} for `<prefix>.titles.generate`. */
export async function connectTitleClient(natsUrl: string, prefix: string): Promise<TitleClient> {
  const bus = await connectBus({ servers: natsUrl, name: `title-client-${prefix}` });
  const subject = names(prefix).titlesGenerate;
  return {
    async request(body) {
      const data =
        body instanceof Uint8Array
          ? body
          : new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body));
      const msg = await bus.nc.request(subject, data, { timeout: 20_000 });
      return TitleReply.parse(msg.json());
    },
    close: () => bus.close(),
  };
}

/**
 * Persists a session as its first persistence would (R9.2: title from the first input).
 *
 * @internal Exported for its tests.
 */
export async function seedSession(db: Db, id: string, firstInput: string): Promise<void> {
  await ensureSession(db, {
    id,
    title: firstInputTitle(firstInput),
    titleSource: 'first_input',
    firstInput,
    createdAt: Date.now(),
  });
}

/**
 * The stored title and source of a session.
 *
 * @internal Exported for its tests.
 */
export async function storedTitle(
  db: Db,
  id: string,
): Promise<{ title: string | null; source: string | null }> {
  const row = await getSession(db, id);
  return { title: row?.title ?? null, source: row?.title_source ?? null };
}

/**
 * Polls `check` every 10 ms until it holds; rejects after `timeoutMs`.
 *
 * @internal Exported for its tests.
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
