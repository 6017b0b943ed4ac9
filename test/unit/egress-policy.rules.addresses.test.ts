// The egress address policy (src/domain/egress-policy.rules.ts) address by address: the class of
// every refused range, one verdict per DNS answer, and the allowlists (EGRESS_ALLOW_HOSTS,
// NUDGE_EGRESS_ALLOW_HOSTS) normalised alike and matched however a host is written.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { normalizeHost, parseHostList } from '../../src/domain/urls.rules.js';
import { allowHostSet, classifyAddress, egressTarget, isAllowedAddress, isAllowedAnswer, type AddressClass } from '../../src/domain/egress-policy.rules.js';

describe('classifyAddress', () => {
  const cases: Array<[string, AddressClass]> = [
    // IPv4
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.5', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.168.1.1', 'private'],
    ['192.169.0.1', 'public'],
    ['169.254.0.1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.100.100.200', 'metadata'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.0.170', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['100::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    // IPv4-mapped, IPv4-compatible, NAT64 and 6to4 carry an IPv4 address: classified as that address.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:100.64.1.1', 'cgnat'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['2002:0808:0808::1', 'public'],
    ['[::1]', 'loopback'],
    // IPv4-translated ::ffff:0:0:0/96 (SIIT, RFC 6145): the reproduction, classed public before.
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:0:a00:1', 'private'],
    ['::ffff:0:a9fe:a9fe', 'metadata'],
    ['::ffff:0:808:808', 'public'],
    // IPv4-mapped in hex and IPv4-compatible in hex (ipaddr.js alone calls ::7f00:1 unicast).
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:c0a8:1', 'private'],
    ['::7f00:1', 'loopback'],
    ['::a00:1', 'private'],
    ['::808:808', 'public'],
    ['::2', 'reserved'],
    // NAT64 well-known prefix in hex; local-use NAT64 never public.
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::c0a8:101', 'private'],
    ['64:ff9b:1:2::8.8.8.8', 'private'],
    // 6to4 embedding private, loopback, CGNAT, metadata and public IPv4.
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a00:1::', 'private'],
    ['2002:ac10:1::1', 'private'],
    ['2002:6440:1::1', 'cgnat'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:a9fe:1::1', 'link_local'],
    // Teredo: tunnels to an IPv4 of the sender's choosing, whatever its obfuscated client part.
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['2001::7f00:1', 'reserved'],
    // Link-local, ULA, site-local, multicast scopes.
    ['fe80::a:b:c:d', 'link_local'],
    ['fd00:ec2::253', 'private'],
    ['fdff:ffff::1', 'private'],
    ['ff05::2', 'multicast'],
    ['ff0e::1', 'multicast'],
    // Unspecified / loopback written out; metadata written out.
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback'],
    ['FD00:EC2:0:0:0:0:0:254', 'metadata'],
    // Carrier-grade NAT edges, benchmarking (v4 and v6), other special-purpose ranges.
    ['100.64.0.0', 'cgnat'],
    ['198.19.255.255', 'reserved'],
    ['198.17.255.255', 'public'],
    ['198.20.0.0', 'public'],
    ['2001:2::1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['2001:10::1', 'reserved'],
    ['2001:20::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['100::', 'reserved'],
    // Outside global unicast 2000::/3 (unassigned): default deny.
    ['4000::1', 'reserved'],
    ['1234::1', 'reserved'],
    // Not addresses at all (lenient forms a resolver never returns and a URL never keeps).
    ['localhost', 'invalid'],
    ['10.0.0', 'invalid'],
    ['127.1', 'invalid'],
    ['0x7f.0.0.1', 'invalid'],
    ['0177.0.0.1', 'invalid'],
    ['2130706433', 'invalid'],
    ['::ffff:127.0.0.1:80', 'invalid'],
    ['[::1', 'invalid'],
    ['', 'invalid'],
  ];
  it.each(cases)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('only public addresses are allowed; an allowlisted host may add private ones, never metadata, multicast or unspecified', () => {
    expect(isAllowedAddress('8.8.8.8')).toBe(true);
    for (const a of ['127.0.0.1', '10.0.0.1', '169.254.1.1', '100.64.0.1', '::1', 'fd00::1', '::ffff:192.168.0.1']) {
      expect(isAllowedAddress(a)).toBe(false);
      expect(isAllowedAddress(a, true)).toBe(true);
    }
    for (const a of ['169.254.169.254', 'fd00:ec2::254', '0.0.0.0', '::', '224.0.0.1', 'ff02::1', 'nonsense']) {
      expect(isAllowedAddress(a)).toBe(false);
      expect(isAllowedAddress(a, true)).toBe(false);
    }
  });
});

describe('one DNS answer, one verdict (isAllowedAnswer)', () => {
  it('refuses an empty answer and any answer with one non-public address', () => {
    expect(isAllowedAnswer([], false)).toBe(false);
    expect(isAllowedAnswer([{ address: '8.8.8.8' }, { address: '2606:4700:4700::1111' }], false)).toBe(true);
    expect(isAllowedAnswer([{ address: '8.8.8.8' }, { address: '::ffff:0:7f00:1' }], false)).toBe(false);
    expect(isAllowedAnswer([{ address: '127.0.0.1' }], true)).toBe(true);
    expect(isAllowedAnswer([{ address: '127.0.0.1' }, { address: '169.254.169.254' }], true)).toBe(false);
  });
});

describe('allowlist normalisation (EGRESS_ALLOW_HOSTS and NUDGE_EGRESS_ALLOW_HOSTS alike)', () => {
  it.each([
    ['Receiver.Test', 'receiver.test'],
    [' receiver.test. ', 'receiver.test'],
    ['receiver.test:8443', 'receiver.test'],
    ['RECEIVER.TEST.:80', 'receiver.test'],
    ['127.0.0.1', '127.0.0.1'],
    ['127.0.0.1:9000', '127.0.0.1'],
    ['[::1]', '::1'],
    ['[::1]:8080', '::1'],
    ['::1', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['[FD00::0001]', 'fd00::1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['bücher.example', 'xn--bcher-kva.example'],
  ])('%j -> %j', (entry, host) => {
    expect(normalizeHost(entry)).toBe(host);
  });

  it('both variables are read with the same normalisation, empty entries dropped', () => {
    const raw = ' 127.0.0.1:8080, Receiver.Test. ,[::1],, [0:0::1]:443 ';
    const want = ['127.0.0.1', 'receiver.test', '::1', '::1'];
    const c = loadConfig({ EGRESS_ALLOW_HOSTS: raw, NUDGE_EGRESS_ALLOW_HOSTS: raw });
    expect(c.egressAllowHosts).toEqual(want);
    expect(c.nudges.egressAllowHosts).toEqual(want);
    expect(parseHostList(raw)).toEqual(want);
    expect(loadConfig({}).nudges.egressAllowHosts).toEqual([]);
  });

  it('an entry matches the URL host however either is written', () => {
    const allow = allowHostSet(['RECEIVER.test.:8080', '[::1]', '127.0.0.1']);
    expect(egressTarget('http://receiver.test:9000/x', allow)?.allowlisted).toBe(true);
    expect(egressTarget('http://Receiver.Test./x', allow)?.allowlisted).toBe(true);
    expect(egressTarget('http://[0:0::1]:9/x', allow)).toMatchObject({ host: '::1', allowlisted: true, literal: 6 });
    expect(egressTarget('http://127.1/x', allow)).toMatchObject({ host: '127.0.0.1', allowlisted: true, literal: 4 });
    expect(egressTarget('http://other.test/x', allow)).toBeNull();
    expect(egressTarget('https://other.test/x', allow)).toMatchObject({ host: 'other.test', allowlisted: false, literal: 0 });
  });

  it('the shared target rule: https only unless allowlisted; IP literals checked up front, metadata never', () => {
    const none = allowHostSet([]);
    expect(egressTarget('not a url', none)).toBeNull();
    expect(egressTarget('ftp://example.test/', none)).toBeNull();
    expect(egressTarget('https://[::ffff:0:7f00:1]/cb', none)).toBeNull();
    expect(egressTarget('https://[64:ff9b::a9fe:a9fe]/cb', none)).toBeNull();
    expect(egressTarget('https://[2002:a00:1::1]/cb', none)).toBeNull();
    expect(egressTarget('https://0x7f000001/cb', none)).toBeNull(); // the URL parser makes it 127.0.0.1
    expect(egressTarget('https://8.8.8.8/cb', none)).toMatchObject({ literal: 4, allowlisted: false });
    expect(egressTarget('http://169.254.169.254/', allowHostSet(['169.254.169.254']))).toBeNull();
  });
});
