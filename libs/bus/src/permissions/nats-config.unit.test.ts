import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { names } from '@agentwire/contracts';
import { describe, expect, it } from 'vitest';
import { natsAuthorizationConfig, passwordVariable } from './nats-config.ts';
import { NATS_ROLES, rolePermissions } from './nats-roles.ts';

const USERS_CONF = fileURLToPath(new URL('../../../../deploy/nats/users.conf', import.meta.url));

describe('the generated NATS configuration', () => {
  it('deploy/nats/users.conf is what the table generates (else run pnpm nats-config)', () => {
    expect(readFileSync(USERS_CONF, 'utf8')).toBe(natsAuthorizationConfig(names('aw')));
  });

  it('has one user per role, its password from the environment', () => {
    const text = natsAuthorizationConfig(names('aw'));
    for (const role of NATS_ROLES) {
      expect(text).toContain(`user: "${role}"\n      password: $${passwordVariable(role)}\n`);
    }
    expect(passwordVariable('persistence-worker')).toBe('AW_NATS_PASSWORD_PERSISTENCE_WORKER');
  });

  it('gives no role a wildcard over everything or another role inbox', () => {
    const table = rolePermissions(names('aw'));
    for (const role of NATS_ROLES) {
      const { publish, subscribe } = table[role];
      expect([...publish, ...subscribe]).not.toContain('>');
      expect(subscribe.filter((s) => s.startsWith('_INBOX'))).toEqual([`_INBOX_${role}.>`]);
    }
  });
});
