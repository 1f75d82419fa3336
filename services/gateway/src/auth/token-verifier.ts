import {
  createRemoteJWKSet,
  errors,
  importSPKI,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import { AuthError, type Principal, type Scope } from './principal.ts';

/** Where the keys that sign tokens come from: exactly one of the three. */
export type TokenKeys =
  | { readonly kind: 'jwks'; readonly url: string }
  | { readonly kind: 'public-key'; readonly pem: string; readonly algorithm: string }
  /** Development only: a shared HS256 secret (static-key mode). */
  | { readonly kind: 'secret'; readonly secret: string };

/** Options of {@link createTokenVerifier}. */
export interface TokenVerifierOptions {
  readonly keys: TokenKeys;
  readonly issuer: string;
  readonly audience: string;
  /** Oldest accepted `iat` (a replayed old token), e.g. `1h`; `exp` is required as well. */
  readonly maxTokenAge: string;
}

/** Verifies a bearer token and names its principal; throws {@link AuthError}. */
export type TokenVerifier = (token: string) => Promise<Principal>;

const TENANT = /^[A-Za-z0-9_-]{1,64}$/;
const SCOPES: readonly Scope[] = ['read', 'write', 'admin'];
const ASYMMETRIC = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'];

function scopesOf(payload: JWTPayload): Set<Scope> {
  const raw = payload.scope ?? payload.scopes;
  const list = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  return new Set(SCOPES.filter((s) => list.includes(s)));
}

function principalOf(payload: JWTPayload): Principal {
  const tenant = payload.tenant;
  if (typeof tenant !== 'string' || !TENANT.test(tenant)) {
    throw new AuthError(
      'invalid_token',
      'the token names no valid tenant (letters, digits, - or _)',
    );
  }
  const scopes = scopesOf(payload);
  if (scopes.size === 0) throw new AuthError('invalid_token', 'the token grants no scope');
  const tokenKey = payload.jti ?? `${payload.sub ?? ''}@${payload.iat ?? ''}`;
  return { tenant, scopes, tokenKey: `${tenant}:${tokenKey}` };
}

/**
 * A verifier with `jose` (docs/decisions/0146): signature by the configured keys, with
 * only the algorithms they can make (`alg: none` and an HS256 token against a public key are
 * refused), issuer, audience, `exp` required, `iat` no older than `maxTokenAge`; then a
 * `tenant` claim and `scope` (space-separated) or `scopes` (array) of read/write/admin.
 */
export async function createTokenVerifier(o: TokenVerifierOptions): Promise<TokenVerifier> {
  let key: JWTVerifyGetKey | Awaited<ReturnType<typeof importSPKI>> | Uint8Array;
  let algorithms: string[];
  switch (o.keys.kind) {
    case 'jwks':
      key = createRemoteJWKSet(new URL(o.keys.url));
      algorithms = ASYMMETRIC;
      break;
    case 'public-key':
      key = await importSPKI(o.keys.pem, o.keys.algorithm);
      algorithms = [o.keys.algorithm];
      break;
    case 'secret':
      key = new TextEncoder().encode(o.keys.secret);
      algorithms = ['HS256'];
      break;
    default: {
      const never: never = o.keys;
      throw new TypeError(`unknown key source ${JSON.stringify(never)}`);
    }
  }
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, key as Uint8Array, {
        issuer: o.issuer,
        audience: o.audience,
        algorithms,
        requiredClaims: ['exp', 'iat'],
        maxTokenAge: o.maxTokenAge,
      });
      return principalOf(payload);
    } catch (error) {
      if (error instanceof AuthError) throw error;
      if (error instanceof errors.JWTExpired) {
        throw new AuthError('token_expired', `the token has expired (${error.message})`, {
          cause: error,
        });
      }
      const why = error instanceof Error ? error.message : String(error);
      throw new AuthError('invalid_token', `the token was refused: ${why}`, { cause: error });
    }
  };
}
