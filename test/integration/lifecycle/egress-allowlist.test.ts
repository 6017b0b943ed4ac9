// EGRESS_ALLOW_HOSTS: webhook action callbacks refuse, at send time, any target that
// resolves to loopback, private, link-local or metadata addresses; the allowlist (config, default
// empty = strict) exempts named hosts for local test receivers. The composition root builds the
// action callbacks' egress client with it (deps.callbackSender).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createClient } from '@connectrpc/connect';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { bearer, closeSessions, transportFor } from '../../helpers/connect.js';
import { event, newPersonalToken, operator, publish, startHarness, type Harness } from '../../helpers/harness.js';

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
  closeSessions();
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
      expect(await h.svc.deps.callbackSender.post(`http://127.0.0.1:${port}/cb`, body, {})).toEqual({ status: 0, ok: false, error: 'blocked_target' });
      expect(hits).toBe(before);
    } finally {
      await h.close();
    }
  });

  it('a listed host is reachable over plain http on loopback; metadata addresses stay refused even when listed', async () => {
    const h = await startHarness({ redisUrl: null, env: { WORKER: 'off', EGRESS_ALLOW_HOSTS: '127.0.0.1,169.254.169.254' } });
    try {
      const before = hits;
      const sender = h.svc.deps.callbackSender;
      expect(await sender.post(`http://127.0.0.1:${port}/cb`, body, {})).toEqual({ status: 204, ok: true });
      expect(hits).toBe(before + 1);
      expect(await sender.post('http://169.254.169.254/latest/meta-data', body, {})).toEqual({ status: 0, ok: false, error: 'blocked_target' });
      // Another loopback name is not on the list.
      expect((await sender.post(`http://localhost:${port}/cb`, body, {})).error).toBe('blocked_target');
    } finally {
      await h.close();
    }
  });

  describe('at publish: one allowlist for publish and send', () => {
    const webhook = (url: string) => [{ label: 'Approve', action_type: 'webhook', webhook_url: url }];
    const storedCount = (h: Harness, tokenId: string) =>
      h.svc.deps.orm.em
        .getConnection()
        .execute('select count(*)::int as n from deliveries where token_id = ?', [tokenId])
        .then((r: any[]) => r[0].n as number);

    it('without the variable, a plain-http loopback webhook_url is refused and nothing is stored', async () => {
      const h = await startHarness({ env: { WORKER: 'off' } });
      try {
        const t = await newPersonalToken(h);
        const res = await publish(h, t.token, event(h, { actions: webhook(`http://127.0.0.1:${port}/cb`) }));
        expect(res.status).toBe(400);
        const codes = res.body.errors.filter((i: any) => i.field === 'actions[0].webhook_url').map((i: any) => i.code);
        expect(codes).toEqual(['invalid_format', 'forbidden_host']);
        expect(await storedCount(h, t.tokenId)).toBe(0);
      } finally {
        await h.close();
      }
    });

    it('a listed host is accepted over plain http, and its click reaches the local receiver; an unlisted loopback name stays refused', async () => {
      const h = await startHarness({ env: { WORKER: 'off', EGRESS_ALLOW_HOSTS: '127.0.0.1' } });
      try {
        const t = await newPersonalToken(h);
        const refused = await publish(h, t.token, event(h, { actions: webhook(`http://localhost:${port}/cb`) }));
        expect(refused.status).toBe(400);
        expect(refused.body.errors.map((i: any) => i.code)).toContain('forbidden_host');
        // Listed, but the credential rules of every event URL still apply.
        const secretInQuery = await publish(h, t.token, event(h, { actions: webhook(`http://127.0.0.1:${port}/cb?token=abc`) }));
        expect(secretInQuery.status).toBe(400);
        expect(secretInQuery.body.errors.map((i: any) => i.code)).toEqual(['credential_param']);
        expect(await storedCount(h, t.tokenId)).toBe(0);

        const ok = await publish(h, t.token, event(h, { actions: webhook(`http://127.0.0.1:${port}/cb`) }));
        expect(ok.status).toBe(202);
        const { token } = await operator<{ token: string }>(h, 'agent_tokens.create', { email: t.user.email });
        const account = createClient(AccountService, transportFor(h, 'connect', [bearer(token)]));
        const before = hits;
        const click = await account.clickAction({ deliveryId: ok.body.deliveryId, actionIndex: 0 });
        expect(click.status).toBe(204);
        expect(hits).toBe(before + 1);
      } finally {
        await h.close();
      }
    });

    it('two services in one process each keep their own list, at publish and at send', async () => {
      const [strict, listed] = await Promise.all([
        startHarness({ env: { WORKER: 'off' } }),
        startHarness({ env: { WORKER: 'off', EGRESS_ALLOW_HOSTS: '127.0.0.1' } }),
      ]);
      try {
        const url = `http://127.0.0.1:${port}/cb`;
        const [s, l] = await Promise.all([newPersonalToken(strict), newPersonalToken(listed)]);
        expect((await publish(strict, s.token, event(strict, { actions: webhook(url) }))).status).toBe(400);
        expect((await publish(listed, l.token, event(listed, { actions: webhook(url) }))).status).toBe(202);
        expect((await strict.svc.deps.callbackSender.post(url, body, {})).error).toBe('blocked_target');
        expect(await listed.svc.deps.callbackSender.post(url, body, {})).toEqual({ status: 204, ok: true });
      } finally {
        await Promise.all([strict.close(), listed.close()]);
      }
    });
  });
});
