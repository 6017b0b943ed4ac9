// EGRESS_ALLOW_HOSTS (issue 4 item 6): webhook action callbacks refuse, at send time, any target that
// resolves to loopback, private, link-local or metadata addresses; the allowlist (config, default
// empty = strict) exempts named hosts for local test receivers. The composition root hands it to the
// egress client that the action callbacks use (clients made without explicit options).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createEgressClient, resetEgressSettings } from '../../../src/infra/http-egress/egress-client.js';
import { startHarness } from '../../helpers/harness.js';

let receiver: http.Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(async () => {
  resetEgressSettings();
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
});

const body = new TextEncoder().encode('{"x":1}');

describe('EGRESS_ALLOW_HOSTS', () => {
  it('parses a comma list of hosts; unset means strict (empty)', () => {
    expect(loadConfig({}).egressAllowHosts).toEqual([]);
    expect(loadConfig({ EGRESS_ALLOW_HOSTS: ' 127.0.0.1, Receiver.Test. ,[::1],, ' }).egressAllowHosts).toEqual(['127.0.0.1', 'receiver.test', '::1']);
  });

  it('default (strict): a loopback target is refused before any connection', async () => {
    const h = await startHarness({ redisUrl: null, env: { WORKER: 'off' } });
    try {
      const before = hits;
      expect(await createEgressClient().post(`http://127.0.0.1:${port}/cb`, body, {})).toEqual({ status: 0, ok: false, error: 'blocked_target' });
      expect(hits).toBe(before);
    } finally {
      await h.close();
    }
  });

  it('a listed host is reachable over plain http on loopback; metadata addresses stay refused even when listed', async () => {
    const h = await startHarness({ redisUrl: null, env: { WORKER: 'off', EGRESS_ALLOW_HOSTS: '127.0.0.1,169.254.169.254' } });
    try {
      const before = hits;
      expect(await createEgressClient().post(`http://127.0.0.1:${port}/cb`, body, {})).toEqual({ status: 204, ok: true });
      expect(hits).toBe(before + 1);
      expect(await createEgressClient().post('http://169.254.169.254/latest/meta-data', body, {})).toEqual({ status: 0, ok: false, error: 'blocked_target' });
      // Another loopback name is not on the list.
      expect((await createEgressClient().post(`http://localhost:${port}/cb`, body, {})).error).toBe('blocked_target');
    } finally {
      await h.close();
    }
  });
});
