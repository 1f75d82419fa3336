import { describe, expect, it } from 'vitest';
import { InstanceMembership } from './instance-membership.ts';

const sessions = Array.from({ length: 300 }, (_, i) => `s${i}`);

describe('InstanceMembership', () => {
  it('given the same live members, every instance places every session on the same owner', () => {
    const a = new InstanceMembership('a', 1_000);
    const b = new InstanceMembership('b', 1_000);
    a.heard('b', 0);
    a.heard('c', 0);
    b.heard('a', 0);
    b.heard('c', 0);
    for (const sid of sessions) expect(a.owner(sid, 10)).toBe(b.owner(sid, 10));
  });

  it('spreads sessions over the members, and moves only the leaving member’s share', () => {
    const m = new InstanceMembership('a', 1_000);
    m.heard('b', 0);
    m.heard('c', 0);
    const before = new Map(sessions.map((sid) => [sid, m.owner(sid, 0)]));
    for (const member of ['a', 'b', 'c']) {
      const share = [...before.values()].filter((o) => o === member).length;
      expect(share).toBeGreaterThan(60);
    }
    m.left('c');
    for (const sid of sessions) {
      const owner = m.owner(sid, 0);
      if (before.get(sid) === 'c') expect(['a', 'b']).toContain(owner);
      else expect(owner).toBe(before.get(sid));
    }
  });

  it('drops a member not heard from within expireMs, and reports a returning one as new', () => {
    const m = new InstanceMembership('a', 1_000);
    expect(m.heard('b', 0)).toBe(true);
    expect(m.heard('b', 500)).toBe(false);
    expect(m.members(1_400)).toEqual(['a', 'b']);
    expect(m.members(1_600)).toEqual(['a']);
    for (const sid of sessions.slice(0, 20)) expect(m.owner(sid, 1_600)).toBe('a');
    expect(m.heard('b', 1_700)).toBe(true);
  });

  it('keeps a member while its own beats come back no faster than the member’s (a backlog here)', () => {
    const m = new InstanceMembership('a', 1_000, 4);
    m.heard('b', 0);
    // This instance reads its socket 3 s late: silence by the clock, but only 2 own echoes.
    m.echoed();
    m.echoed();
    expect(m.members(3_000)).toEqual(['a', 'b']);
    expect(m.heard('b', 3_000)).toBe(false);
    // Now 4 of its own beats came back and b's did not: b is gone.
    for (let i = 0; i < 4; i++) m.echoed();
    expect(m.members(4_100)).toEqual(['a']);
    expect(m.heard('b', 4_200)).toBe(true);
  });
});
