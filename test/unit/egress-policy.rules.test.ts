// One egress address policy (src/domain/egress-policy.rules.ts) decides a user-supplied target when
// the URL is accepted and again when it is called: chat / push receiver URLs (receiverUrlIssue) and
// the send-time clients (egressTarget) agree URL by URL; the webhook_url rule of SPEC ActionButton
// ("must not target localhost, 127.*, 0.0.0.0") is the policy's loopback / unspecified class, and
// everything it refuses is refused at send time too.
import { describe, expect, it } from 'vitest';
import { allowHostSet, egressDecision, egressTarget, urlHostClass } from '../../src/domain/egress-policy.rules.js';
import { addWebhookTargetIssues } from '../../src/domain/events/event-validation.rules.js';
import { receiverUrlIssue } from '../../src/domain/nudges/nudge.rules.js';
import { parseHostList } from '../../src/domain/urls.rules.js';

const TARGETS = [
  'https://hooks.example.com/x',
  'https://93.184.215.14/x',
  'https://[2606:4700::1111]/x',
  'http://hooks.example.com/x',
  'http://127.0.0.1:9/x',
  'https://127.0.0.1/x',
  'https://127.1.2.3:9000/x',
  'https://0.0.0.0/x',
  'https://[::]/x',
  'https://[::1]/x',
  'https://[0:0::1]:8443/x',
  'https://[::ffff:127.0.0.1]/x',
  'https://10.1.2.3/x',
  'https://192.168.1.10/x',
  'https://100.64.0.9/x',
  'https://169.254.169.254/latest',
  'http://169.254.169.254/latest',
  'https://[fd00::5]/x',
  'https://[fe80::1]/x',
  'https://[::ffff:192.168.1.10]/x',
  'https://[64:ff9b::a00:1]/x',
  'https://[2002:c0a8:10a::1]/x',
  'https://localhost/x',
  'https://LOCALHOST.:8443/x',
  'https://api.localhost/x',
  'ftp://hooks.example.com/x',
  'not a url',
];

const ALLOWLISTS: ReadonlyArray<readonly string[]> = [[], ['127.0.0.1'], ['[::1]', 'LocalHost.'], ['169.254.169.254'], ['10.1.2.3:8080']];

describe('one decision when a receiver URL is accepted and when it is called', () => {
  it.each(ALLOWLISTS)('allowlist %j: receiverUrlIssue accepts exactly what egressTarget would call', (...allow) => {
    const set = allowHostSet(allow);
    for (const url of TARGETS) {
      const accepted = receiverUrlIssue(url, allow) === null;
      expect(accepted, `${url} with ${JSON.stringify(allow)}`).toBe(egressTarget(url, set) !== null);
    }
  });

  it('the refusal says why: scheme, address, or not a URL', () => {
    expect(receiverUrlIssue('http://hooks.example.com/x', [])).toBe('must start with https://');
    expect(receiverUrlIssue('https://10.1.2.3/x', [])).toMatch(/private/);
    expect(receiverUrlIssue('https://localhost/x', [])).toMatch(/loopback/);
    expect(receiverUrlIssue('not a url', [])).toBe('must be an absolute URL');
    expect(egressDecision('http://hooks.example.com/x', allowHostSet([]))).toEqual({ ok: false, refusal: 'scheme' });
    expect(egressDecision('https://[::ffff:127.0.0.1]/x', allowHostSet([]))).toEqual({ ok: false, refusal: 'address' });
    expect(egressDecision('file:///etc/passwd', allowHostSet([]))).toEqual({ ok: false, refusal: 'invalid_url' });
  });

  it('metadata addresses stay refused even for an allowlisted host; an allowlisted loopback name is allowed', () => {
    expect(egressTarget('http://169.254.169.254/latest', allowHostSet(['169.254.169.254']))).toBeNull();
    expect(egressTarget('http://localhost:8080/x', allowHostSet(['localhost']))).toMatchObject({ host: 'localhost', allowlisted: true, literal: 0 });
  });
});

describe('one allowlist parser', () => {
  it('config lists and client options normalise alike, and targets compare against the same form', () => {
    const raw = ' 127.0.0.1, Receiver.Test. ,[0:0::1]:8080,, 127.1 ';
    expect(parseHostList(raw)).toEqual(['127.0.0.1', 'receiver.test', '::1', '127.0.0.1']);
    expect([...allowHostSet(raw.split(','))]).toEqual(['127.0.0.1', 'receiver.test', '::1']);
    const set = allowHostSet(parseHostList(raw));
    for (const url of ['http://127.0.0.1:9/x', 'http://RECEIVER.test./x', 'http://[::1]:7/x', 'http://127.1/x']) {
      expect(egressTarget(url, set), url).toMatchObject({ allowlisted: true });
    }
    expect(egressTarget('http://receiver.test.evil/x', set)).toBeNull();
  });
});

describe('webhook_url when the event is accepted (SPEC ActionButton)', () => {
  const refusedAtPublish = (webhook_url: string): boolean => {
    // The webhook target rule with no EGRESS_ALLOW_HOSTS (the strict one).
    const issues = addWebhookTargetIssues([], [{ label: 'Ack', action_type: 'webhook', webhook_url }], allowHostSet([]));
    return issues.some((i) => i.code === 'forbidden_host');
  };

  it('refused: localhost names and loopback / unspecified literals in every form', () => {
    for (const url of [
      'https://localhost/x',
      'https://LOCALHOST.:8443/x',
      'https://api.localhost/x',
      'https://127.0.0.1/x',
      'https://127.1.2.3:9000/x',
      'https://0.0.0.0/x',
      'https://[::]/x',
      'https://[::1]/x',
      'https://[0:0::1]:8443/x',
      'https://[::ffff:127.0.0.1]/x',
    ]) {
      expect(refusedAtPublish(url), url).toBe(true);
      expect(['loopback', 'unspecified']).toContain(urlHostClass(url));
    }
  });

  it('accepted: public hosts, and other non-public literals the spec leaves to the send-time check', () => {
    for (const url of [
      'https://hooks.example.com/x',
      'https://93.184.215.14/x',
      'https://10.1.2.3/x',
      'https://169.254.169.254/latest',
      'https://[fd00::5]/x',
    ]) {
      expect(refusedAtPublish(url), url).toBe(false);
    }
  });

  it('everything refused at publish time is refused at send time too (the same policy, strict)', () => {
    for (const url of TARGETS.filter((u) => u.startsWith('https://'))) {
      if (refusedAtPublish(url)) expect(egressTarget(url, allowHostSet([])), url).toBeNull();
    }
  });
});
