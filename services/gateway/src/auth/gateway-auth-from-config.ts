import { names } from '@agentwire/contracts';
import type { NatsConnection } from '@nats-io/transport-node';
import type { GatewayConfig } from '../config.ts';
import type { GatewayAuth } from './register-auth.ts';
import { openSessionOwners } from './session-owners.ts';
import { createTokenVerifier, type TokenKeys } from './token-verifier.ts';

function keysOf(c: GatewayConfig): TokenKeys {
  if (c.AW_GATEWAY_JWT_JWKS_URL) return { kind: 'jwks', url: c.AW_GATEWAY_JWT_JWKS_URL };
  if (c.AW_GATEWAY_JWT_PUBLIC_KEY) {
    return {
      kind: 'public-key',
      pem: c.AW_GATEWAY_JWT_PUBLIC_KEY,
      algorithm: c.AW_GATEWAY_JWT_ALG,
    };
  }
  return { kind: 'secret', secret: c.AW_GATEWAY_JWT_SECRET ?? '' };
}

/** The gateway's authentication from its configuration, or undefined when it is off. */
export async function gatewayAuthFrom(
  config: GatewayConfig,
  nc: NatsConnection,
): Promise<GatewayAuth | undefined> {
  if (config.AW_GATEWAY_AUTH !== 'jwt') return undefined;
  return {
    verify: await createTokenVerifier({
      keys: keysOf(config),
      issuer: config.AW_GATEWAY_JWT_ISSUER ?? '',
      audience: config.AW_GATEWAY_JWT_AUDIENCE ?? '',
      maxTokenAge: config.AW_GATEWAY_JWT_MAX_AGE,
    }),
    owners: await openSessionOwners(nc, names(config.AW_PREFIX), config.AW_REPLICAS),
    maxTokenBytes: config.AW_GATEWAY_MAX_TOKEN_BYTES,
  };
}
