import { readFileSync } from 'node:fs';
import {
  type Authenticator,
  type ConnectionOptions,
  credsAuthenticator,
  nkeyAuthenticator,
} from '@nats-io/transport-node';
import { roleInboxPrefix } from './nats-roles.ts';

/** How a service proves who it is to NATS, from its environment (`natsCredentialsFrom`). */
export type NatsCredentials =
  | { readonly kind: 'none' }
  | { readonly kind: 'password'; readonly user: string; readonly password: string }
  | { readonly kind: 'nkey'; readonly seed: string }
  | { readonly kind: 'creds'; readonly file: string };

/** The variables {@link natsCredentialsFrom} reads (all optional). */
export interface NatsCredentialVariables {
  readonly NATS_USER?: string | undefined;
  readonly NATS_PASSWORD?: string | undefined;
  readonly NATS_NKEY_SEED?: string | undefined;
  readonly NATS_CREDS_FILE?: string | undefined;
  readonly NATS_INBOX_PREFIX?: string | undefined;
}

/**
 * Picks the one way of authenticating the environment gives: `NATS_CREDS_FILE` (a JWT
 * `.creds` file), `NATS_NKEY_SEED`, or `NATS_USER` with `NATS_PASSWORD`; none for an open
 * server. Two at once is a configuration error (thrown as `TypeError` naming them).
 */
export function natsCredentialsFrom(v: NatsCredentialVariables): NatsCredentials {
  const given = [
    v.NATS_CREDS_FILE && 'NATS_CREDS_FILE',
    v.NATS_NKEY_SEED && 'NATS_NKEY_SEED',
    (v.NATS_USER || v.NATS_PASSWORD) && 'NATS_USER/NATS_PASSWORD',
  ].filter(Boolean);
  if (given.length > 1)
    throw new TypeError(`set one way to authenticate, not ${given.join(' and ')}`);
  if (v.NATS_CREDS_FILE) return { kind: 'creds', file: v.NATS_CREDS_FILE };
  if (v.NATS_NKEY_SEED) return { kind: 'nkey', seed: v.NATS_NKEY_SEED };
  if (v.NATS_USER || v.NATS_PASSWORD) {
    if (!v.NATS_USER || !v.NATS_PASSWORD)
      throw new TypeError('NATS_USER and NATS_PASSWORD go together');
    return { kind: 'password', user: v.NATS_USER, password: v.NATS_PASSWORD };
  }
  return { kind: 'none' };
}

/**
 * Connection options for `credentials`: the authenticator, and the inbox prefix the role's
 * permissions allow (`inboxPrefix`, else `_INBOX_<user>` for a user, else the default), so
 * replies arrive where no other user may subscribe.
 */
export function connectionAuth(
  credentials: NatsCredentials,
  inboxPrefix?: string,
): Pick<ConnectionOptions, 'authenticator' | 'user' | 'pass' | 'inboxPrefix'> {
  const prefix =
    inboxPrefix ??
    (credentials.kind === 'password' ? roleInboxPrefix(credentials.user) : undefined);
  const inbox = prefix === undefined ? {} : { inboxPrefix: prefix };
  switch (credentials.kind) {
    case 'none':
      return inbox;
    case 'password':
      return { ...inbox, user: credentials.user, pass: credentials.password };
    case 'nkey':
      return {
        ...inbox,
        authenticator: nkeyAuthenticator(new TextEncoder().encode(credentials.seed)),
      };
    case 'creds':
      return {
        ...inbox,
        authenticator: credsAuthenticator(readFileSync(credentials.file)) as Authenticator,
      };
    default: {
      const never: never = credentials;
      throw new TypeError(`unknown credentials ${JSON.stringify(never)}`);
    }
  }
}
