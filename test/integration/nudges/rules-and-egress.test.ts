// Pure nudge rules (payload shapes, URL rule, UTC day) and the nudge egress client's target rules
// (same as src/infra/http-egress: https only, no private/loopback/metadata addresses unless the
// host is explicitly allowlisted), without a database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatPayload, pushPayload, receiverUrlIssue, utcDay } from '../../../src/domain/nudges/nudge.rules.js';
import { createNudgeEgressClient } from '../../../src/infra/chat/nudge-egress.js';
import { startReceiver, type Receiver } from './receiver.js';

const content = {
  title: 'Build <failed> & more',
  severity: 'critical',
  url: 'https://desk.example.com/inbox/abc',
  tag: '7d2c1a8e-0000-4000-8000-000000000001',
};

describe('nudge rules', () => {
  it('Slack: text + one mrkdwn section, escaped title, link; Feishu: msg_type text', () => {
    const slack = chatPayload('slack', content) as { text: string; blocks: unknown[] };
    expect(slack.text).toBe('[CRITICAL] Build &lt;failed&gt; &amp; more <https://desk.example.com/inbox/abc|Open in inbox>');
    expect(slack.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: slack.text } }]);
    expect(chatPayload('feishu', content)).toEqual({
      msg_type: 'text',
      content: { text: '[CRITICAL] Build <failed> & more\nhttps://desk.example.com/inbox/abc' },
    });
    expect(JSON.parse(pushPayload(content))).toEqual(content);
  });

  it('receiver URLs: https only; http only for an allowlisted host; no credentials', () => {
    expect(receiverUrlIssue('https://hooks.slack.com/services/x', [])).toBeNull();
    expect(receiverUrlIssue('http://hooks.slack.com/services/x', [])).toMatch(/https/);
    expect(receiverUrlIssue('http://127.0.0.1:9/x', [])).toMatch(/https/);
    expect(receiverUrlIssue('http://127.0.0.1:9/x', ['127.0.0.1'])).toBeNull();
    expect(receiverUrlIssue('https://a:b@example.com/', [])).toMatch(/credentials/);
    expect(receiverUrlIssue(`https://example.com/${'x'.repeat(2000)}`, [])).toMatch(/2000/);
  });

  it('the day is the UTC date of the clock', () => {
    expect(utcDay(new Date('2026-11-22T23:59:59.999-02:00'))).toBe('2026-11-23');
    expect(utcDay(new Date('2026-11-22T00:00:00Z'))).toBe('2026-11-22');
  });
});

describe('nudge egress client', () => {
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
  });
  const body = new TextEncoder().encode('{}');

  it('refuses plain http, private and loopback targets (literal or resolved) unless allowlisted', async () => {
    const strict = createNudgeEgressClient({ timeoutMs: 2000, allowHosts: [] });
    try {
      expect(await strict.post(`${rx.url}/x`, body, {})).toMatchObject({ ok: false, error: 'blocked_target' });
      for (const url of [
        'https://127.0.0.1/x',
        'https://10.1.2.3/x',
        'https://169.254.169.254/latest',
        'https://[::1]/x',
        'https://[::ffff:127.0.0.1]/x',
        'https://localhost/x',
      ]) {
        expect(await strict.post(url, body, {}), url).toMatchObject({ ok: false, error: 'blocked_target' });
      }
      expect(rx.hits).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it('an allowlisted local receiver is reached (pooled connection); a hanging one times out', async () => {
    const local = createNudgeEgressClient({ timeoutMs: 300, allowHosts: ['127.0.0.1'] });
    try {
      expect(await local.post(`${rx.url}/ok`, body, { 'content-type': 'application/json' })).toEqual({ status: 201, ok: true });
      for (let i = 0; i < 5; i++) expect(await local.post(`${rx.url}/ok`, body, {})).toEqual({ status: 201, ok: true });
      // Kept-alive connections are reused (a finishing response may overlap the next request: two at most).
      expect(new Set(rx.hitsFor('/ok').map((h) => h.remotePort)).size).toBeLessThanOrEqual(2);
      rx.behave('/slow', { delayMs: 2000 });
      expect(await local.post(`${rx.url}/slow`, body, {})).toMatchObject({ ok: false, error: 'timeout' });
      // A receiver that sends its status, then stalls in the body, is cut by the same deadline.
      rx.behave('/stall', { stallBody: true });
      expect(await local.post(`${rx.url}/stall`, body, {})).toMatchObject({ ok: false, error: 'timeout' });
      // Redirects are reported, never followed.
      rx.behave('/moved', { status: 302, location: `${rx.url}/elsewhere` });
      expect(await local.post(`${rx.url}/moved`, body, {})).toEqual({ status: 302, ok: false });
      expect(rx.hitsFor('/elsewhere')).toHaveLength(0);
      // Metadata addresses stay unreachable even for an allowlisted host name.
      const meta = createNudgeEgressClient({ timeoutMs: 300, allowHosts: ['169.254.169.254'] });
      expect(await meta.post('http://169.254.169.254/latest', body, {})).toMatchObject({ ok: false, error: 'blocked_target' });
      await meta.close();
    } finally {
      await local.close();
    }
  });
});
