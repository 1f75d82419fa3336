import {
  HistoryReply,
  ListSessionsReply,
  SessionProjection as ProjectionSchema,
  type SessionProjection,
} from '@agentwire/contracts';
import { z } from 'zod';

/** A gateway error reply (`{ error: { code, message } }`) or a network failure. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly code: string;
  readonly status: number;

  constructor(message: string, options: { code: string; status: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.code = options.code;
    this.status = options.status;
  }
}

const ErrorReply = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/** The list as the gateway sends it (the bus reply without its `ok`). */
const SessionPage = ListSessionsReply.omit({ ok: true });
/** One page of a session's list. */
export type SessionPage = z.infer<typeof SessionPage>;
const HistoryPage = HistoryReply.omit({ ok: true });
/** One page of a session's history. */
export type HistoryPage = z.infer<typeof HistoryPage>;
const ProjectionReply = z.object({ projection: ProjectionSchema, asOfSeq: z.number().int() });
const Created = z.object({ sessionId: z.string() });

async function call<T>(schema: z.ZodType<T>, path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      ...init,
      headers: {
        accept: 'application/json',
        ...(init?.body ? { 'content-type': 'application/json' } : {}),
      },
    });
  } catch (cause) {
    throw new GatewayError('the gateway cannot be reached', {
      code: 'unreachable',
      status: 0,
      cause,
    });
  }
  const body: unknown = await res.json().catch(() => undefined);
  if (!res.ok) {
    const error = ErrorReply.safeParse(body);
    const { code, message } = error.success
      ? error.data.error
      : { code: 'http_error', message: `HTTP ${res.status}` };
    throw new GatewayError(message, { code, status: res.status });
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new GatewayError(`unexpected reply from ${path}`, {
      code: 'bad_reply',
      status: res.status,
    });
  }
  return parsed.data;
}

const post = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body) });
const sid = (id: string) => `/sessions/${encodeURIComponent(id)}`;

/** The session list, most recently updated first. */
export function listSessions(): Promise<SessionPage> {
  return call(SessionPage, '/sessions?limit=100');
}

/** Creates a session; its id. */
export async function createSession(): Promise<string> {
  return (await call(Created, '/sessions', post({}))).sessionId;
}

/** A history page: the newest one exact for `asOfSeq`, or the one a cursor names. */
export function historyPage(
  sessionId: string,
  at: { readonly asOfSeq: number } | { readonly cursor: string },
): Promise<HistoryPage> {
  const query =
    'cursor' in at ? `cursor=${encodeURIComponent(at.cursor)}` : `asOfSeq=${at.asOfSeq}&from=end`;
  return call(HistoryPage, `${sid(sessionId)}/history?limit=100&${query}`);
}

/** The projection and the number it is exact for; a session with no event yet has none. */
export async function readProjection(
  sessionId: string,
): Promise<{ projection: SessionProjection | undefined; asOfSeq: number }> {
  try {
    return await call(ProjectionReply, `${sid(sessionId)}/projection`);
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'not_found') {
      return { projection: undefined, asOfSeq: 0 };
    }
    throw error;
  }
}

/** How a prompt sent during a running turn is delivered (R14.3): steer it in, or queue it. */
export type Lane = 'guide' | 'queue';

/** Sends a prompt: it starts a turn, or waits in its lane while one runs. */
export function sendPrompt(sessionId: string, text: string, lane: Lane): Promise<unknown> {
  return call(z.unknown(), `${sid(sessionId)}/prompt`, post({ text, delivery: lane }));
}

/** Interrupts the running turn. */
export function interruptTurn(sessionId: string): Promise<unknown> {
  return call(z.unknown(), `${sid(sessionId)}/interrupt`, post({}));
}

/** Answers a permission request. */
export function answerPermission(
  sessionId: string,
  requestId: string,
  decision: 'allow' | 'deny',
): Promise<unknown> {
  return call(
    z.unknown(),
    `${sid(sessionId)}/permissions/${encodeURIComponent(requestId)}`,
    post({ decision }),
  );
}

/** Removes a waiting input from the queue. */
export function removeInput(sessionId: string, inputId: string): Promise<unknown> {
  return call(z.unknown(), `${sid(sessionId)}/queue/${encodeURIComponent(inputId)}`, {
    method: 'DELETE',
  });
}

/** Moves a waiting input to `position` (0 is the front). */
export function moveInput(sessionId: string, inputId: string, position: number): Promise<unknown> {
  return call(
    z.unknown(),
    `${sid(sessionId)}/queue/${encodeURIComponent(inputId)}/move`,
    post({ position }),
  );
}

/** Removes every waiting input. */
export function clearQueue(sessionId: string): Promise<unknown> {
  return call(z.unknown(), `${sid(sessionId)}/queue/clear`, post({}));
}

/** Renames a session (a title set by a person is never replaced by a generated one). */
export function renameSession(sessionId: string, title: string): Promise<unknown> {
  return call(z.unknown(), `${sid(sessionId)}/rename`, post({ title }));
}

/** Replaces a waiting input's text; it keeps its place in the queue. */
export function editInput(sessionId: string, inputId: string, text: string): Promise<unknown> {
  return call(z.unknown(), `${sid(sessionId)}/queue/${encodeURIComponent(inputId)}`, {
    method: 'PATCH',
    body: JSON.stringify({ text }),
  });
}
