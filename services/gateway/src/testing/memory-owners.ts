import type { SessionOwners } from '../auth/session-owners.ts';

/** Session owners in a map, for `app.inject()` tests (the service uses the KV bucket). */
export class MemoryOwners implements SessionOwners {
  readonly owners = new Map<string, string>();

  async ownerOf(sessionId: string): Promise<string | undefined> {
    return this.owners.get(sessionId);
  }

  async claim(sessionId: string, tenant: string): Promise<string> {
    if (!this.owners.has(sessionId)) this.owners.set(sessionId, tenant);
    return this.owners.get(sessionId) as string;
  }
}
