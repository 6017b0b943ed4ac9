// The client address key the anonymous sign-in routes count against (src/domain/web/sign-in-limits.rules.ts):
// what a browser's address gives, hostile values included, never an error.
import { describe, expect, it } from 'vitest';
import { addressKey } from '../../src/domain/web/sign-in-limits.rules.js';

describe('addressKey', () => {
  it('an IPv4 address as itself, an IPv6 one by its /64, IPv4-mapped IPv6 as the IPv4 address', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe(addressKey('2001:db8:1:2:ffff::1'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('::ffff:10.0.0.1')).toBe('10.0.0.1');
  });
  it('anything unparsable counts as itself (never a shared window, never an error)', () => {
    for (const junk of ['', 'not-an-ip', '1.2.3.4, 5.6.7.8', '\u0000', 'x'.repeat(20_000)]) expect(addressKey(junk)).toBe(junk);
  });
});
