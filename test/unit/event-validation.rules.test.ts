// Pure unit tests of the InboundEvent rules (SPEC "InboundEvent", "ActionButton", "RecipientHint",
// "Inbound event validation rules", Limits "Event fields"; inbound protocol 4-5). Every limit is
// checked at its boundary: the maximum is accepted, one more is refused with the documented code.
import { describe, expect, it } from 'vitest';
import type { Issue } from '../../src/domain/errors.js';
import type { Channel } from '../../src/domain/context.js';
import type { TokenKind } from '../../src/domain/principal.js';
import { eventContextIssues, InboundEventSchema, normalizeLegacyEvent } from '../../src/domain/events/event-validation.rules.js';
import { FORBIDDEN_EVENT_KEYS, LEGACY_EVENT_KEYS } from '../../src/domain/events/event.limits.js';
import { EditHeldEventInput } from '../../src/domain/moderation/edit-held-event.js';
import { fieldPath, zodToIssues } from '../../src/domain/validation.js';
import { allowHostSet } from '../../src/domain/egress-policy.rules.js';

const NOW = new Date('2026-06-09T10:00:00.000Z');
const HOUR = 60 * 60 * 1000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString();

const base = (): Record<string, unknown> => ({
  spec_version: '2',
  event_id: 'ci-pipeline-4711',
  event_type: 'personal.build.failed',
  severity: 'warn',
  title: 'Pipeline 4711 failed on main',
  occurred_at: at(-60_000),
});

interface Ctx {
  channel?: Channel;
  tokenKind?: TokenKind;
  allowedEventPrefix?: string;
  /** EGRESS_ALLOW_HOSTS; default none. */
  egressAllowHosts?: string[];
}

/** What the runner does: schema issues (with the event key policy) merged with the context rules. */
function validate(over: Record<string, unknown> = {}, ctx: Ctx = {}, raw?: unknown): Issue[] {
  const input = raw !== undefined ? raw : { ...base(), ...over };
  const parsed = InboundEventSchema.safeParse(input, { reportInput: true });
  const issues = parsed.success ? [] : zodToIssues(parsed.error, { forbidden: FORBIDDEN_EVENT_KEYS, legacy: LEGACY_EVENT_KEYS });
  issues.push(
    ...eventContextIssues(input, {
      channel: ctx.channel ?? 'v1',
      tokenKind: ctx.tokenKind ?? 'personal',
      allowedEventPrefix: ctx.allowedEventPrefix ?? 'personal.',
      now: NOW,
      egressAllowHosts: allowHostSet(ctx.egressAllowHosts ?? []),
    }),
  );
  return issues;
}

const pairs = (issues: Issue[]) => issues.map((i) => `${i.field}:${i.code}`);

function expectValid(over: Record<string, unknown>, ctx?: Ctx) {
  expect(validate(over, ctx)).toEqual([]);
}
function expectOnly(over: Record<string, unknown>, field: string, code: string, ctx?: Ctx) {
  expect(pairs(validate(over, ctx))).toEqual([`${field}:${code}`]);
}

const s = (n: number, ch = 'a') => ch.repeat(n);
/** A valid email address of exactly n characters. */
const emailOf = (n: number) => `${s(n - '@example.com'.length)}@example.com`;
/** An https URL of exactly n characters. */
const urlOf = (n: number) => {
  const head = 'https://example.com/';
  return head + s(n - head.length, 'p');
};

describe('the base event', () => {
  it('is valid (sanity check for every boundary test below)', () => {
    expectValid({});
    expect(InboundEventSchema.safeParse(base()).success).toBe(true);
  });

  it('each required field missing gives `required` on that field', () => {
    for (const key of ['spec_version', 'event_id', 'event_type', 'severity', 'title', 'occurred_at']) {
      const raw = base();
      delete raw[key];
      expect(pairs(validate({}, {}, raw))).toEqual([`${key}:required`]);
    }
  });
});

describe('string limits (max accepted, max+1 refused with too_long)', () => {
  const cases: Array<[string, number, (n: number) => unknown, string?]> = [
    ['event_id', 120, (n) => s(n)],
    ['event_type', 60, (n) => `personal.${s(n - 'personal.'.length)}`],
    ['title', 200, (n) => s(n)],
    ['summary', 500, (n) => s(n)],
    ['markdown_body', 8000, (n) => s(n)],
    ['external_url', 2000, urlOf],
    ['project_slug', 80, (n) => s(n)],
  ];
  for (const [field, max, make] of cases) {
    it(`${field}: ${max} accepted, ${max + 1} refused`, () => {
      expect((make(max) as string).length).toBe(max);
      expectValid({ [field]: make(max) });
      expectOnly({ [field]: make(max + 1) }, field, 'too_long');
    });
  }

  it('empty required strings give `required`', () => {
    expect(pairs(validate({ event_id: '' }))).toContain('event_id:required');
    expectOnly({ title: '' }, 'title', 'required');
    // The namespace gate ignores an empty type; the empty type itself is the issue.
    expectOnly({ event_type: '' }, 'event_type', 'required');
    expectOnly({ project_slug: '' }, 'project_slug', 'required');
  });

  it('empty optional text is allowed where the spec gives only a maximum', () => {
    expectValid({ summary: '', markdown_body: '' });
  });
});

describe('event_id pattern', () => {
  it('accepts letters, digits, _ and -', () => {
    expectValid({ event_id: 'Abc_123-xyz' });
  });
  it.each(['has space', 'dot.ted', 'slash/ed', 'ümlaut', 'colon:x'])('refuses %j with invalid_format', (id) => {
    expectOnly({ event_id: id }, 'event_id', 'invalid_format');
  });
});

describe('title', () => {
  it.each(['line one\nline two', 'line one\r\nline two', 'carriage\rreturn'])('must be a single line: %j', (title) => {
    expectOnly({ title }, 'title', 'invalid_format');
  });
  it('190 characters are within the limit', () => {
    expectValid({ title: s(190) });
  });
});

describe('the moderation edit applies the publish rules to the text it rewrites', () => {
  const ENTRY = '0b8f4a52-5f8e-4c41-9a43-2f1f3c0a9d11';
  const edit = (fields: Record<string, unknown>) => {
    const r = EditHeldEventInput.safeParse({ entry_id: ENTRY, ...fields });
    return r.success ? [] : pairs(zodToIssues(r.error));
  };

  it('title: 1-200 characters on a single line, after trimming', () => {
    expect(edit({ title: s(190) })).toEqual([]);
    expect(edit({ title: s(200) })).toEqual([]);
    expect(edit({ title: `  ${s(200)}  ` })).toEqual([]);
    expect(edit({ title: s(201) })).toEqual(['title:too_long']);
    expect(edit({ title: '   ' })).toEqual(['title:required']);
    expect(edit({ title: 'line one\nline two' })).toEqual(['title:invalid_format']);
  });

  it('summary at most 500, markdown_body at most 8000', () => {
    expect(edit({ summary: s(500), markdown_body: s(8000) })).toEqual([]);
    expect(edit({ summary: s(501) })).toEqual(['summary:too_long']);
    expect(edit({ markdown_body: s(8001) })).toEqual(['markdown_body:too_long']);
  });
});

describe('external_url', () => {
  it('must use https', () => {
    expectOnly({ external_url: 'http://example.com/x' }, 'external_url', 'invalid_format');
    expectOnly({ external_url: 'ftp://example.com/x' }, 'external_url', 'invalid_format');
    expectValid({ external_url: 'https://example.com/x?page=2&q=token-free' });
  });

  it.each(['token', 'Token', 'TOKEN', 'api_key', 'API_KEY', 'secret', 'password', 'access_token', 'X-Amz-Signature', 'x-amz-credential'])(
    'refuses the credential query parameter %s (case-insensitive) with credential_param',
    (param) => {
      expectOnly({ external_url: `https://example.com/path?view=1&${param}=abc` }, 'external_url', 'credential_param');
    },
  );

  it('does not confuse credential-looking paths or values with parameters', () => {
    expectValid({ external_url: 'https://example.com/token/api_key?q=secret' });
  });
});

describe('secrets in URLs (SPEC "What the service does" 3, rule 5): every URL field of an event', () => {
  const fields: Array<[string, (u: string) => Record<string, unknown>, string]> = [
    ['external_url', (u) => ({ external_url: u }), 'external_url'],
    ['actions[].url', (u) => ({ actions: [{ label: 'Open', action_type: 'url', url: u }] }), 'actions[0].url'],
    ['actions[].webhook_url', (u) => ({ actions: [{ label: 'Ack', action_type: 'webhook', webhook_url: u }] }), 'actions[0].webhook_url'],
  ];

  describe.each(fields)('%s', (_name, make, field) => {
    it.each([
      'https://user:SECRET@example.com/x',
      'https://user@example.com/x',
      'https://:SECRET@example.com/x',
      'https://svc-in-pers-abc%40x@example.com/x',
      'https://USER:pw@Example.COM:8443/x?view=1#top',
    ])('refuses userinfo %s with credential_userinfo', (url) => {
      expectOnly(make(url), field, 'credential_userinfo');
    });

    it.each([
      'https://example.com/cb#access_token=SECRET',
      'https://example.com/cb#state=1&access_token=SECRET&expires_in=3600',
      'https://example.com/cb#ID_TOKEN=SECRET',
      'https://example.com/cb#Token=SECRET',
      'https://example.com/cb#api_key=SECRET',
      'https://example.com/cb#x-amz-signature=abc',
      'https://example.com/cb#a=1;secret=2',
      'https://example.com/cb#%61ccess_token=SECRET',
      'https://example.com/app/#/callback?access_token=SECRET',
      'https://example.com/cb#token=',
    ])('refuses the credential fragment parameter in %s with credential_param', (url) => {
      expectOnly(make(url), field, 'credential_param');
    });

    it.each(['https://example.com/x?token=abc', 'https://example.com/x?view=1&API_KEY=abc', 'https://example.com/x?X-Amz-Signature=1'])(
      'refuses the credential query parameter in %s with credential_param',
      (url) => {
        expectOnly(make(url), field, 'credential_param');
      },
    );

    it.each([
      'https://example.com/docs#token',
      'https://example.com/docs#section-access_token',
      'https://example.com/docs#/settings/tokens',
      'https://example.com/cb#state=abc&page=2',
      'https://example.com/token/api_key?q=secret#sig',
      'https://example.com/x?next=%2Fa%40b#q=password',
      'https://example.com/@user/profile',
    ])('accepts %s (anchors, paths and values are not credentials)', (url) => {
      expectValid(make(url));
    });

    it('userinfo and a credential parameter together give both issues on the field', () => {
      expect(pairs(validate(make('https://u:p@example.com/#token=x')))).toEqual([`${field}:credential_userinfo`, `${field}:credential_param`]);
    });

    it('a string that starts with https:// but is no URL is invalid_format (once)', () => {
      expectOnly(make('https://[::1/x'), field, 'invalid_format');
      // Not https AND a secret: both are reported, as for a credential query parameter.
      expect(pairs(validate(make('http://u:p@example.com/')))).toEqual([`${field}:invalid_format`, `${field}:credential_userinfo`]);
    });
  });

  it('the messages name the kind of secret, never echo it', () => {
    for (const url of ['https://user:SECRET@example.com/', 'https://example.com/#access_token=SECRET']) {
      const [issue] = validate({ external_url: url });
      expect(issue?.message).toMatch(/credential/);
      expect(issue?.message).not.toContain('SECRET');
    }
  });
});

describe('actor', () => {
  it('email: 120 accepted, 121 too_long; must be an email', () => {
    expectValid({ actor: { email: emailOf(120) } });
    expectOnly({ actor: { email: emailOf(121) } }, 'actor.email', 'too_long');
    expectOnly({ actor: { email: 'not-an-email' } }, 'actor.email', 'invalid_format');
    expectOnly({ actor: {} }, 'actor.email', 'required');
  });

  it('name: 80 accepted, 81 too_long', () => {
    expectValid({ actor: { email: 'a@example.com', name: s(80) } });
    expectOnly({ actor: { email: 'a@example.com', name: s(81) } }, 'actor.name', 'too_long');
  });

  it('is strict', () => {
    expectOnly({ actor: { email: 'a@example.com', user_id: 'x' } }, 'actor.user_id', 'unknown_key');
  });
});

describe('labels', () => {
  const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));

  it('20 entries accepted, 21 refused with too_many on labels', () => {
    expectValid({ labels: labels(20) });
    expectOnly({ labels: labels(21) }, 'labels', 'too_many');
  });

  it('value: 80 accepted, 81 too_long on labels.<key>', () => {
    expectValid({ labels: { env: s(80) } });
    expectOnly({ labels: { env: s(81) } }, 'labels.env', 'too_long');
  });

  it('values must be strings', () => {
    expectOnly({ labels: { amount: 10 } }, 'labels.amount', 'invalid_type');
  });
});

describe('actions', () => {
  const action = (over: Record<string, unknown> = {}) => ({ label: 'Open', action_type: 'url', url: 'https://example.com/a', ...over });

  it('4 accepted, 5 refused with too_many', () => {
    expectValid({ actions: Array.from({ length: 4 }, () => action()) });
    expectOnly({ actions: Array.from({ length: 5 }, () => action()) }, 'actions', 'too_many');
  });

  it('label: 40 accepted, 41 too_long, empty required', () => {
    expectValid({ actions: [action({ label: s(40) })] });
    expectOnly({ actions: [action({ label: s(41) })] }, 'actions[0].label', 'too_long');
    expectOnly({ actions: [action({ label: '' })] }, 'actions[0].label', 'required');
  });

  it('url and webhook_url: 2000 accepted, 2001 too_long', () => {
    expectValid({ actions: [action({ url: urlOf(2000) })] });
    expectOnly({ actions: [action({ url: urlOf(2001) })] }, 'actions[0].url', 'too_long');
    expectValid({ actions: [{ label: 'Ack', action_type: 'webhook', webhook_url: urlOf(2000) }] });
    expectOnly({ actions: [{ label: 'Ack', action_type: 'webhook', webhook_url: urlOf(2001) }] }, 'actions[0].webhook_url', 'too_long');
  });

  it('action_type defaults to url, so url is then required', () => {
    expectValid({ actions: [{ label: 'Open', url: 'https://example.com' }] });
    expectOnly({ actions: [{ label: 'Open' }] }, 'actions[0].url', 'required');
  });

  it('url type: url required, webhook_url not_allowed', () => {
    expectOnly({ actions: [{ label: 'Open', action_type: 'url' }] }, 'actions[0].url', 'required');
    expectOnly({ actions: [action({ webhook_url: 'https://hooks.example.com/x' })] }, 'actions[0].webhook_url', 'not_allowed');
  });

  it('webhook type: webhook_url required, url not_allowed', () => {
    expectOnly({ actions: [{ label: 'Ack', action_type: 'webhook' }] }, 'actions[0].webhook_url', 'required');
    expectOnly(
      { actions: [{ label: 'Ack', action_type: 'webhook', webhook_url: 'https://hooks.example.com/x', url: 'https://example.com' }] },
      'actions[0].url',
      'not_allowed',
    );
  });

  it('url and webhook_url must use https', () => {
    expectOnly({ actions: [action({ url: 'http://example.com' })] }, 'actions[0].url', 'invalid_format');
    expectOnly({ actions: [{ label: 'Ack', action_type: 'webhook', webhook_url: 'http://hooks.example.com' }] }, 'actions[0].webhook_url', 'invalid_format');
  });

  it.each([
    'https://localhost/cb',
    'https://LOCALHOST:8443/cb',
    'https://localhost./cb',
    'https://api.localhost/cb',
    'https://127.0.0.1/cb',
    'https://127.1.2.3:9000/cb',
    'https://0.0.0.0/cb',
    'https://[::1]/cb',
  ])('webhook target %s is refused with forbidden_host', (webhook_url) => {
    expectOnly({ actions: [{ label: 'Ack', action_type: 'webhook', webhook_url }] }, 'actions[0].webhook_url', 'forbidden_host');
  });

  it('a public webhook target is accepted, and the host rule applies to webhook_url only', () => {
    expectValid({ actions: [{ label: 'Ack', action_type: 'webhook', webhook_url: 'https://hooks.example.com/cb' }] });
  });

  it('a host on EGRESS_ALLOW_HOSTS may be plain http on loopback; other hosts and the credential rules stay as they are', () => {
    const allow = { egressAllowHosts: ['127.0.0.1'] };
    const webhook = (webhook_url: string) => ({ actions: [{ label: 'Ack', action_type: 'webhook', webhook_url }] });
    expectValid(webhook('http://127.0.0.1:9000/cb'), allow);
    expect(pairs(validate(webhook('http://127.0.0.1:9000/cb')))).toEqual(['actions[0].webhook_url:invalid_format', 'actions[0].webhook_url:forbidden_host']);
    expect(pairs(validate(webhook('http://localhost:9000/cb'), allow))).toEqual([
      'actions[0].webhook_url:invalid_format',
      'actions[0].webhook_url:forbidden_host',
    ]);
    expectOnly(webhook('http://127.0.0.1:9000/cb?token=abc'), 'actions[0].webhook_url', 'credential_param', allow);
  });

  it('action_type is an enum; flat keys inside an action are unknown', () => {
    expectOnly({ actions: [action({ action_type: 'post' })] }, 'actions[0].action_type', 'invalid_enum');
    expectOnly({ actions: [action({ target: '_blank' })] }, 'actions[0].target', 'unknown_key');
  });

  it('reports issues per action index', () => {
    expect(pairs(validate({ actions: [action(), action({ url: 'http://x' }), action({ label: s(41) })] }))).toEqual([
      'actions[1].url:invalid_format',
      'actions[2].label:too_long',
    ]);
  });
});

describe('recipient and recipient_hint (rule 2)', () => {
  const hint = { email: 'bob@example.com' };
  const recipient = { type: 'email', value: 'bob@example.com' };

  it('a personal token must send neither', () => {
    expectOnly({ recipient_hint: hint }, 'recipient_hint', 'recipient_hint_forbidden', { tokenKind: 'personal' });
    expectOnly({ recipient }, 'recipient', 'recipient_hint_forbidden', { tokenKind: 'personal' });
  });

  it('a moderation token needs one of them on every event', () => {
    expectOnly({}, 'recipient_hint', 'recipient_hint_required', { tokenKind: 'moderation' });
    expectValid({ recipient_hint: hint }, { tokenKind: 'moderation' });
    expectValid({ recipient }, { tokenKind: 'moderation' });
  });

  it('both together are refused with recipient_conflict, whatever the token', () => {
    expectOnly({ recipient, recipient_hint: hint }, 'recipient', 'recipient_conflict', { tokenKind: 'moderation' });
    expectOnly({ recipient, recipient_hint: hint }, 'recipient', 'recipient_conflict', { tokenKind: 'personal' });
  });

  it('an empty recipient_hint is refused with required', () => {
    expectOnly({ recipient_hint: {} }, 'recipient_hint', 'required', { tokenKind: 'moderation' });
  });

  it('recipient_hint fields: email max 120, user_id uuid, display_hint max 80', () => {
    const mod = { tokenKind: 'moderation' as const };
    expectValid({ recipient_hint: { email: emailOf(120), user_id: '6f1c2a4e-8b7d-4c3e-9a1f-2b3c4d5e6f70', display_hint: s(80) } }, mod);
    expectOnly({ recipient_hint: { email: emailOf(121) } }, 'recipient_hint.email', 'too_long', mod);
    expectOnly({ recipient_hint: { user_id: 'not-a-uuid' } }, 'recipient_hint.user_id', 'invalid_format', mod);
    expectOnly({ recipient_hint: { display_hint: s(81) } }, 'recipient_hint.display_hint', 'too_long', mod);
  });

  it('recipient: type email, value an email of at most 120', () => {
    const mod = { tokenKind: 'moderation' as const };
    expectValid({ recipient: { type: 'email', value: emailOf(120) } }, mod);
    expectOnly({ recipient: { type: 'email', value: emailOf(121) } }, 'recipient.value', 'too_long', mod);
    expectOnly({ recipient: { type: 'sms', value: 'bob@example.com' } }, 'recipient.type', 'invalid_enum', mod);
  });
});

describe('occurred_at (rule 3: within now - 24 h, now + 5 min, exclusive)', () => {
  it('just inside the window is accepted', () => {
    expectValid({ occurred_at: at(-24 * HOUR + 1) });
    expectValid({ occurred_at: at(5 * 60_000 - 1) });
    expectValid({ occurred_at: at(0) });
  });

  it('exactly now - 24 h, or older, is too_old', () => {
    expectOnly({ occurred_at: at(-24 * HOUR) }, 'occurred_at', 'too_old');
    expectOnly({ occurred_at: at(-48 * HOUR) }, 'occurred_at', 'too_old');
  });

  it('exactly now + 5 min, or later, is in_future', () => {
    expectOnly({ occurred_at: at(5 * 60_000) }, 'occurred_at', 'in_future');
    expectOnly({ occurred_at: at(HOUR) }, 'occurred_at', 'in_future');
  });

  it('the window is computed on the instant, whatever the offset', () => {
    // 11:59:00+02:00 is 09:59:00Z, one minute before NOW.
    expectValid({ occurred_at: '2026-06-09T11:59:00+02:00' });
    // 12:06:00+02:00 is 10:06:00Z, six minutes after NOW.
    expectOnly({ occurred_at: '2026-06-09T12:06:00+02:00' }, 'occurred_at', 'in_future');
  });

  it('an offset is required; other shapes are invalid_format', () => {
    expectOnly({ occurred_at: '2026-06-09T09:59:00' }, 'occurred_at', 'invalid_format');
    expectOnly({ occurred_at: '2026-06-09' }, 'occurred_at', 'invalid_format');
    expectOnly({ occurred_at: 'yesterday' }, 'occurred_at', 'invalid_format');
    expectOnly({ occurred_at: NOW.getTime() }, 'occurred_at', 'invalid_type');
  });
});

describe('spec_version', () => {
  it('must be the text "2"', () => {
    expectValid({ spec_version: '2' });
    expectOnly({ spec_version: '1' }, 'spec_version', 'invalid_format');
    expectOnly({ spec_version: '2.0' }, 'spec_version', 'invalid_format');
  });
  it('the number 2 is invalid_type', () => {
    expectOnly({ spec_version: 2 }, 'spec_version', 'invalid_type');
  });
});

describe('enums', () => {
  it.each([
    ['severity', ['critical', 'warn', 'info', 'success'], 'error'],
    ['tone', ['neutral', 'positive', 'negative'], 'angry'],
    ['external_status', ['firing', 'resolved', 'pending', 'approved', 'rejected', 'withdrawn'], 'exploded'],
    ['markdown_body_rendering', ['collapsed', 'expanded', 'preview'], 'inline'],
  ] as const)('%s accepts exactly its listed values', (field, values, bad) => {
    for (const v of values) expectValid({ [field]: v });
    expectOnly({ [field]: bad }, field, 'invalid_enum');
    expectOnly({ [field]: values[0].toUpperCase() }, field, 'invalid_enum');
  });
});

describe('locale', () => {
  it.each(['en', 'zh-TW', 'de-CH', 'zh-Hant-TW'])('accepts the BCP-47 tag %s', (locale) => {
    expectValid({ locale });
  });
  it.each(['english!', 'e', 'en_US', '', 'en-'])('refuses %j with invalid_format', (locale) => {
    expectOnly({ locale }, 'locale', 'invalid_format');
  });
});

describe('namespace gate (Authentication 8, inbound protocol 3)', () => {
  it('on /api/v1 the event type must start with the token prefix', () => {
    expectOnly({ event_type: 'billing.invoice.paid' }, 'event_type', 'namespace_mismatch', { channel: 'v1' });
    expectValid({ event_type: 'acme.build.failed' }, { channel: 'v1', allowedEventPrefix: 'acme.' });
  });
  it('the older endpoint does not enforce it', () => {
    expectValid({ event_type: 'anything.x' }, { channel: 'legacy' });
  });
});

describe('top-level keys (rule 1)', () => {
  const FORBIDDEN = [
    'body',
    'payload',
    'content',
    'full_text',
    'attachment',
    'attachments',
    'files',
    'secret',
    'token',
    'api_key',
    'password',
    'credential',
    'credentials',
    'private_key',
    'prompt',
    'completion',
    'ai_response',
    'chat_history',
    'recipients',
  ];

  it('the rule lists exactly the 19 names of the spec', () => {
    expect(FORBIDDEN).toHaveLength(19);
    expect([...FORBIDDEN_EVENT_KEYS].sort()).toEqual([...FORBIDDEN].sort());
  });

  it.each(FORBIDDEN)('%s is refused with forbidden_key', (key) => {
    expectOnly({ [key]: 'x' }, key, 'forbidden_key');
  });

  it.each(['action_label', 'action_url'])('flat legacy %s is refused with legacy_key', (key) => {
    expectOnly({ [key]: 'x' }, key, 'legacy_key');
  });

  it('other unknown keys are refused with unknown_key', () => {
    expectOnly({ target_email: 'a@example.com' }, 'target_email', 'unknown_key');
    expectOnly({ Title: 'x' }, 'Title', 'unknown_key');
  });

  it('a forbidden name nested below the top level is just unknown', () => {
    expectOnly({ actor: { email: 'a@example.com', token: 'x' } }, 'actor.token', 'unknown_key');
  });
});

describe('all issues are reported together (rule 6)', () => {
  it('one input with many problems yields every issue', () => {
    const issues = validate({
      spec_version: '1',
      event_id: 'bad id',
      event_type: 'other.type',
      severity: 'fatal',
      title: '',
      occurred_at: at(-25 * HOUR),
      external_url: 'https://example.com/?api_key=1',
      labels: { env: s(81) },
      actions: [{ label: 'Go', action_type: 'webhook', webhook_url: 'https://127.0.0.1/x' }],
      recipient_hint: { email: 'bob@example.com' },
      payload: {},
      action_url: 'https://example.com',
      colour: 'red',
    });
    expect(pairs(issues).sort()).toEqual(
      [
        'spec_version:invalid_format',
        'event_id:invalid_format',
        'event_type:namespace_mismatch',
        'severity:invalid_enum',
        'title:required',
        'occurred_at:too_old',
        'external_url:credential_param',
        'labels.env:too_long',
        'actions[0].webhook_url:forbidden_host',
        'recipient_hint:recipient_hint_forbidden',
        'payload:forbidden_key',
        'action_url:legacy_key',
        'colour:unknown_key',
      ].sort(),
    );
    for (const i of issues) expect(i.message.length).toBeGreaterThan(0);
  });
});

describe('non-object bodies', () => {
  it('a missing body is required, a wrong JSON type is invalid_type, on the empty path', () => {
    expect(pairs(validate({}, {}, null))).toEqual([':invalid_type']);
    expect(pairs(validate({}, {}, [base()]))).toEqual([':invalid_type']);
    expect(pairs(validate({}, {}, 'event'))).toEqual([':invalid_type']);
    const parsed = InboundEventSchema.safeParse(undefined, { reportInput: true });
    expect(parsed.success).toBe(false);
    expect(pairs(zodToIssues(parsed.error!))).toEqual([':required']);
  });
});

describe('zodToIssues and fieldPath', () => {
  it('field paths use . for nesting and [i] for list items', () => {
    expect(fieldPath([])).toBe('');
    expect(fieldPath(['title'])).toBe('title');
    expect(fieldPath(['actions', 0, 'url'])).toBe('actions[0].url');
    expect(fieldPath(['labels', 'env'])).toBe('labels.env');
  });

  it('without a key policy every unknown key is unknown_key', () => {
    const parsed = InboundEventSchema.safeParse({ ...base(), token: 'x', action_url: 'y' }, { reportInput: true });
    expect(pairs(zodToIssues(parsed.error!))).toEqual(['token:unknown_key', 'action_url:unknown_key']);
  });

  it('one issue per unknown key, each with a message naming it', () => {
    const parsed = InboundEventSchema.safeParse({ ...base(), prompt: 'x', secret: 'y', foo: 1 }, { reportInput: true });
    const issues = zodToIssues(parsed.error!, { forbidden: FORBIDDEN_EVENT_KEYS, legacy: LEGACY_EVENT_KEYS });
    expect(pairs(issues)).toEqual(['prompt:forbidden_key', 'secret:forbidden_key', 'foo:unknown_key']);
    expect(issues[0]!.message).toContain('prompt');
    expect(issues[2]!.message).toContain('foo');
  });
});

describe('normalizeLegacyEvent (older endpoint leniency)', () => {
  it('drops an unlisted external_status so it is stored as null', () => {
    const out = normalizeLegacyEvent({ ...base(), external_status: 'exploded' }) as Record<string, unknown>;
    expect('external_status' in out).toBe(false);
    expect(out).toEqual(base());
    expect(validate({}, { channel: 'legacy' }, out)).toEqual([]);
  });

  it('drops a non-string external_status too', () => {
    expect('external_status' in (normalizeLegacyEvent({ ...base(), external_status: 7 }) as object)).toBe(false);
  });

  it('keeps a listed external_status and leaves everything else unchanged', () => {
    const ev = { ...base(), external_status: 'firing', zzz: 1 };
    expect(normalizeLegacyEvent(ev)).toEqual(ev);
  });

  it('passes non-objects through for validation to refuse', () => {
    expect(normalizeLegacyEvent([1])).toEqual([1]);
    expect(normalizeLegacyEvent('x')).toBe('x');
  });
});
