// Where a push subscription's endpoint may point (src/domain/nudges/push-subscription.rules.ts):
// the known browser push services, plus PUSH_ENDPOINT_ALLOW_HOSTS, compared as the URL parser
// reads the host. No database, no network.
import { describe, expect, it } from 'vitest';
import {
  hostMatchesPattern,
  isPushServiceEndpoint,
  KNOWN_PUSH_SERVICE_HOSTS,
  MAX_PUSH_SUBSCRIPTIONS_PER_USER,
  pushEndpointIssue,
} from '../../src/domain/nudges/push-subscription.rules.js';

const known = (url: string) => isPushServiceEndpoint(url, []);

describe('push service hosts', () => {
  it('the four known browser push services, and 20 subscriptions per user', () => {
    expect(KNOWN_PUSH_SERVICE_HOSTS).toEqual(['fcm.googleapis.com', 'updates.push.services.mozilla.com', '*.notify.windows.com', 'web.push.apple.com']);
    expect(MAX_PUSH_SUBSCRIPTIONS_PER_USER).toBe(20);
  });

  it.each([
    'https://fcm.googleapis.com/fcm/send/abc',
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
    'https://wns2-par02p.notify.windows.com/w/?token=BQYAAAD',
    'https://db5p.notify.windows.com/w/?token=x',
    'https://web.push.apple.com/QGuQyavXutnMH',
    'https://FCM.GoogleAPIs.COM/fcm/send/abc',
    'https://fcm.googleapis.com./fcm/send/abc',
    'https://WNS2-PAR02P.Notify.Windows.Com./w/',
    'https://fcm.googleapis.com:443/fcm/send/abc',
    // Full-width letters are the same name once the URL parser maps them (IDNA).
    'https://ｆｃｍ.googleapis.com/fcm/send/abc',
  ])('accepts %s', (url) => {
    expect(known(url)).toBe(true);
  });

  it.each([
    'https://evil.example.com/x',
    'https://fcm.googleapis.com.evil.com/fcm/send/abc',
    'https://fcm.googleapis.com%2eevil.com/fcm/send/abc',
    'https://evilfcm.googleapis.com/fcm/send/abc',
    'https://sub.fcm.googleapis.com/fcm/send/abc',
    'https://googleapis.com/fcm/send/abc',
    'https://notify.windows.com/w/',
    'https://xnotify.windows.com/w/',
    'https://notify.windows.com.evil.com/w/',
    'https://wns2.notify.windows.com.evil.com/w/',
    'https://web.push.apple.com.evil.com/x',
    'https://xn--fcm-googleapis-com.evil/x',
    'https://142.250.0.1/fcm/send/abc',
    'not a url',
  ])('refuses %s', (url) => {
    expect(known(url)).toBe(false);
  });

  it('patterns: `*.name` takes subdomains only, a plain entry that host only; IP literals match exact entries only', () => {
    expect(hostMatchesPattern('a.example.com', '*.example.com')).toBe(true);
    expect(hostMatchesPattern('a.b.example.com', '*.example.com')).toBe(true);
    expect(hostMatchesPattern('example.com', '*.example.com')).toBe(false);
    expect(hostMatchesPattern('aexample.com', '*.example.com')).toBe(false);
    expect(hostMatchesPattern('example.com.evil.com', '*.example.com')).toBe(false);
    expect(hostMatchesPattern('example.com', 'example.com')).toBe(true);
    expect(hostMatchesPattern('a.example.com', 'example.com')).toBe(false);
    // Entries are normalised like every host: case, trailing dot, IDNA, IPv6 brackets.
    expect(hostMatchesPattern('a.example.com', '*.EXAMPLE.com.')).toBe(true);
    expect(hostMatchesPattern('push.xn--bcher-kva.example', '*.bücher.example')).toBe(true);
    expect(hostMatchesPattern('::1', '[::1]')).toBe(true);
    expect(hostMatchesPattern('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(hostMatchesPattern('127.0.0.1', '*.0.0.1')).toBe(false);
    // Empty or bare wildcards match nothing.
    expect(hostMatchesPattern('example.com', '*.')).toBe(false);
    expect(hostMatchesPattern('example.com', '*')).toBe(false);
    expect(hostMatchesPattern('example.com', '')).toBe(false);
  });

  it('PUSH_ENDPOINT_ALLOW_HOSTS adds hosts (exact or `*.`) to the known ones', () => {
    const extra = ['push.example.org', '*.push.example.net'];
    expect(isPushServiceEndpoint('https://push.example.org/s/1', extra)).toBe(true);
    expect(isPushServiceEndpoint('https://eu.push.example.net/s/1', extra)).toBe(true);
    expect(isPushServiceEndpoint('https://push.example.net/s/1', extra)).toBe(false);
    expect(isPushServiceEndpoint('https://a.push.example.org/s/1', extra)).toBe(false);
    expect(isPushServiceEndpoint('https://fcm.googleapis.com/fcm/send/abc', extra)).toBe(true);
  });
});

describe('pushEndpointIssue', () => {
  const strict = { allowHttpHosts: [], extraPushHosts: [] };

  it('a push service endpoint passes', () => {
    expect(pushEndpointIssue('https://fcm.googleapis.com/fcm/send/abc', strict)).toBeNull();
  });

  it('another host: push_service_not_allowed on `endpoint`, naming the allowed hosts and the setting', () => {
    const issue = pushEndpointIssue('https://evil.example.com/x', strict);
    expect(issue).toMatchObject({ field: 'endpoint', code: 'push_service_not_allowed' });
    for (const named of [...KNOWN_PUSH_SERVICE_HOSTS, 'PUSH_ENDPOINT_ALLOW_HOSTS', 'https']) expect(issue!.message).toContain(named);
    // Connect bounds a violation message to 200 characters: the whole text fits.
    expect(issue!.message.length).toBeLessThanOrEqual(200);
  });

  it('the receiver URL rules still apply first: https, no credentials, no private address', () => {
    expect(pushEndpointIssue('http://fcm.googleapis.com/fcm/send/abc', strict)).toMatchObject({ code: 'invalid_url', message: 'must start with https://' });
    expect(pushEndpointIssue('https://u:p@fcm.googleapis.com/fcm/send/abc', strict)).toMatchObject({ code: 'invalid_url' });
    const local = { allowHttpHosts: [], extraPushHosts: ['127.0.0.1'] };
    expect(pushEndpointIssue('https://127.0.0.1/push/x', local)).toMatchObject({ code: 'invalid_url' });
  });

  it('a local test receiver needs both settings: NUDGE_EGRESS_ALLOW_HOSTS (plain http, loopback) and PUSH_ENDPOINT_ALLOW_HOSTS', () => {
    const url = 'http://127.0.0.1:9/push/x';
    expect(pushEndpointIssue(url, { allowHttpHosts: ['127.0.0.1'], extraPushHosts: [] })).toMatchObject({ code: 'push_service_not_allowed' });
    expect(pushEndpointIssue(url, { allowHttpHosts: [], extraPushHosts: ['127.0.0.1'] })).toMatchObject({ code: 'invalid_url' });
    expect(pushEndpointIssue(url, { allowHttpHosts: ['127.0.0.1'], extraPushHosts: ['127.0.0.1'] })).toBeNull();
  });
});
