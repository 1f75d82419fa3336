import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayBackend } from '../gateway-port.ts';
import { errorBody } from '../http-error.ts';
import { SessionParams } from '../session-routes.ts';
import { AuthError, hasScope, type Principal, type Scope } from './principal.ts';
import type { SessionOwners } from './session-owners.ts';
import type { TokenVerifier } from './token-verifier.ts';

/** Authentication of the session routes (`AW_GATEWAY_AUTH=jwt`). */
export interface GatewayAuth {
  readonly verify: TokenVerifier;
  readonly owners: SessionOwners;
  /** A longer `Authorization` header is refused unread (401 `token_too_large`). */
  readonly maxTokenBytes: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified caller; null when authentication is off or the route is not a session's. */
    principal: Principal | null;
  }
}

const BEARER = /^Bearer ([A-Za-z0-9_.-]+)$/;

async function authenticate(header: string | undefined, auth: GatewayAuth): Promise<Principal> {
  if (header === undefined || header === '') {
    throw new AuthError(
      'unauthenticated',
      'a bearer token is required (Authorization: Bearer <jwt>)',
    );
  }
  if (Buffer.byteLength(header) > auth.maxTokenBytes) {
    throw new AuthError(
      'token_too_large',
      `the Authorization header is over ${auth.maxTokenBytes} bytes`,
    );
  }
  const match = BEARER.exec(header);
  if (!match?.[1])
    throw new AuthError('unauthenticated', 'the Authorization header is not a bearer token');
  return auth.verify(match[1]);
}

function unknownSession(reply: FastifyReply, id: string): FastifyReply {
  return reply.code(404).send(errorBody('unknown_session', `no session ${id}`, { sessionId: id }));
}

/** Most forks between a session nobody owns and the owned session it descends from. */
const MAX_FORK_DEPTH = 8;

/**
 * Whether the caller may touch the session of the route: its tenant owns it, or it opens an
 * id nobody has used, which it then owns, or the session is nobody's and descends by forks
 * from one the tenant owns (a fork that waited in the queue ran after its request was
 * answered, docs/decisions/0243), which it then owns. Everything else looks like a session
 * that does not exist (404, never 403), so ids cannot be probed (docs/decisions/0146).
 */
async function mayTouch(
  request: FastifyRequest,
  principal: Principal,
  id: string,
  o: { readonly owners: SessionOwners; readonly backend: GatewayBackend },
): Promise<boolean> {
  const owner = await o.owners.ownerOf(id);
  if (owner !== undefined) return owner === principal.tenant;
  const claim = async () => (await o.owners.claim(id, principal.tenant)) === principal.tenant;
  if (request.routeOptions.url === '/sessions/:id/open' && !(await o.backend.knows(id)))
    return claim();
  return (await forkAncestorOwner(id, o)) === principal.tenant && claim();
}

/** The owner of the nearest owned session `id` was forked from (directly or not), if any. */
async function forkAncestorOwner(
  id: string,
  o: { readonly owners: SessionOwners; readonly backend: GatewayBackend },
): Promise<string | undefined> {
  let current = id;
  for (let depth = 0; depth < MAX_FORK_DEPTH; depth += 1) {
    const origin = await o.backend.forkOrigin(current);
    if (origin === undefined || origin === id) return undefined;
    const owner = await o.owners.ownerOf(origin);
    if (owner !== undefined) return owner;
    current = origin;
  }
  return undefined;
}

/**
 * Bearer tokens on every `/sessions` route (401 without a valid one, 403 without the
 * scope: `read` for GET, `write` for the rest), and the tenant check on every route with a
 * session id, SSE included. Other routes (`/healthz`, `/readyz`, `/metrics`) stay open.
 */
export function registerAuth(
  app: FastifyInstance,
  auth: GatewayAuth,
  backend: GatewayBackend,
): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/sessions')) return;
    try {
      request.principal = await authenticate(request.headers.authorization, auth);
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send(errorBody(error.code, error.message));
    }
    const needed: Scope = request.method === 'GET' ? 'read' : 'write';
    if (!hasScope(request.principal, needed)) {
      return reply.code(403).send(errorBody('forbidden', `the token lacks the ${needed} scope`));
    }
  });
  app.addHook('preHandler', async (request, reply) => {
    const principal = request.principal;
    const id = (request.params as { id?: unknown } | undefined)?.id;
    if (principal === null || typeof id !== 'string') return;
    if (!SessionParams.shape.id.safeParse(id).success) return; // the route answers 400 naming it
    if (!(await mayTouch(request, principal, id, { owners: auth.owners, backend }))) {
      return unknownSession(reply, id);
    }
  });
}
