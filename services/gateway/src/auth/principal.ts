/** What a token grants; `admin` includes `write`, which includes `read`. */
export type Scope = 'read' | 'write' | 'admin';

/** The caller of a request, from its verified bearer token. */
export interface Principal {
  /** The tenant every session it touches must belong to. */
  readonly tenant: string;
  readonly scopes: ReadonlySet<Scope>;
  /** The token's identity for rate limits: its `jti`, else its subject and issue time. */
  readonly tokenKey: string;
}

/** Whether `principal` may do what `needed` names. */
export function hasScope(principal: Principal, needed: Scope): boolean {
  if (principal.scopes.has('admin')) return true;
  if (needed === 'read') return principal.scopes.has('read') || principal.scopes.has('write');
  return principal.scopes.has(needed);
}

/** A refused credential: the gateway answers 401 with this code. */
export class AuthError extends Error {
  override readonly name = 'AuthError';
  readonly code: 'unauthenticated' | 'invalid_token' | 'token_expired' | 'token_too_large';

  constructor(code: AuthError['code'], message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
