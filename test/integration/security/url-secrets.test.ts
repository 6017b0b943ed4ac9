// Secrets in event URLs (SPEC "What the service does" 3: no credentials are stored; Events rules 4-5;
// InboundEvent `external_url`, ActionButton `url` / `webhook_url`). A URL with userinfo
// (`https://user:SECRET@host/`) or a credential parameter in its query or fragment
// (`#access_token=SECRET`) is a field error on every write path that carries event URLs, and
// nothing is stored: no delivery, no inbox row, nothing in list_inbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, publish, publishLegacy, startHarness, type Harness, type HttpResult, type TestToken } from '../../helpers/harness.js';
import { adminTools, claimedEmployee, expectProblem, fieldCodes } from '../../helpers/tools.js';
import { call, mcp, newAgent, toolInvalid, toolText } from '../mcp/rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

/** One event field carrying a secret, the field path the error must name, and its code. */
const SECRET_URLS: Array<[string, Record<string, unknown>, string, string]> = [
  ['external_url with user:password', { external_url: 'https://user:SECRET@ci.example.test/run/1' }, 'external_url', 'credential_userinfo'],
  ['external_url with a user name only', { external_url: 'https://SECRET@ci.example.test/run/1' }, 'external_url', 'credential_userinfo'],
  [
    'external_url with #access_token=',
    { external_url: 'https://ci.example.test/cb#access_token=SECRET&token_type=bearer' },
    'external_url',
    'credential_param',
  ],
  ['external_url with #ID_TOKEN=', { external_url: 'https://ci.example.test/cb#state=x&ID_TOKEN=SECRET' }, 'external_url', 'credential_param'],
  [
    'action url with userinfo',
    { actions: [{ label: 'Open', action_type: 'url', url: 'https://u:SECRET@ci.example.test/' }] },
    'actions[0].url',
    'credential_userinfo',
  ],
  ['action url with #api_key=', { actions: [{ label: 'Open', url: 'https://ci.example.test/#api_key=SECRET' }] }, 'actions[0].url', 'credential_param'],
  [
    'webhook_url with #token=',
    {
      actions: [
        { label: 'Open', url: 'https://ci.example.test/' },
        { label: 'Ack', action_type: 'webhook', webhook_url: 'https://hooks.example.test/ack#token=SECRET' },
      ],
    },
    'actions[1].webhook_url',
    'credential_param',
  ],
  [
    'webhook_url with userinfo',
    { actions: [{ label: 'Ack', action_type: 'webhook', webhook_url: 'https://bot:SECRET@hooks.example.test/ack' }] },
    'actions[0].webhook_url',
    'credential_userinfo',
  ],
];

async function storedFor(t: TestToken): Promise<{ deliveries: number; notifications: number }> {
  const [d] = await sql('select count(*)::int as n from deliveries where token_id = ?', [t.tokenId]);
  const [n] = await sql('select count(*)::int as n from notifications where user_id = ?', [t.user.userId]);
  return { deliveries: d.n, notifications: n.n };
}

/** What the owner's agent sees in list_inbox (the `targetUrl` a stored secret would come back as). */
async function inboxOf(t: TestToken): Promise<any[]> {
  const agent = await newAgent(h, ['read:inbox'], t.user);
  const r = await mcp(h, call('list_inbox'), { token: agent.token });
  expect(r.status, r.text).toBe(200);
  return toolText(r.body).items;
}

function expectNoSecretEcho(r: HttpResult) {
  // The error names the field and the rule; it never repeats the credential.
  expect(r.text).not.toContain('SECRET');
}

describe('POST /api/v1/events', () => {
  it.each(SECRET_URLS)('%s: 400 validation-failed naming the field; nothing stored', async (_name, over, field, code) => {
    const t = await newPersonalToken(h);
    const r = await publish(h, t.token, event(h, over));
    expectProblem(r, 400, 'schema_invalid', 'validation-failed');
    expect(fieldCodes(r)).toEqual([{ field, code }]);
    expect(Object.keys(r.body.fieldErrors)).toEqual([field]);
    expectNoSecretEcho(r);
    expect(await storedFor(t)).toEqual({ deliveries: 0, notifications: 0 });
    expect(await inboxOf(t)).toEqual([]);
  });

  it('a clean URL with an anchor and harmless parameters is accepted and shown as targetUrl', async () => {
    const t = await newPersonalToken(h);
    const url = 'https://ci.example.test/run/7?view=log#token-usage';
    const r = await publish(h, t.token, event(h, { external_url: url, actions: [{ label: 'Open', url: 'https://ci.example.test/#/runs?page=2' }] }));
    expect(r.status, r.text).toBe(202);
    expect((await inboxOf(t)).map((i) => i.targetUrl)).toEqual([url]);
  });
});

describe('POST /api/internal-os/integrations/inbound/personal (legacy)', () => {
  it.each(SECRET_URLS)('%s: 400 schema_invalid naming the field; nothing stored', async (_name, over, field, code) => {
    const t = await newPersonalToken(h);
    const r = await publishLegacy(h, t.token, event(h, over));
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({ error: 'schema_invalid', field, reason: code });
    expect(r.body.errors.map((e: { field: string; reason: string }) => `${e.field}:${e.reason}`)).toEqual([`${field}:${code}`]);
    expectNoSecretEcho(r);
    expect(await storedFor(t)).toEqual({ deliveries: 0, notifications: 0 });
    expect(await inboxOf(t)).toEqual([]);
  });
});

describe('POST /api/v1/events/bulk (tools-token fan-out)', () => {
  it.each(SECRET_URLS)('%s: 400 naming event.<field>; no recipient gets anything', async (_name, over, field, code) => {
    const tools = await adminTools(h);
    const employee = await claimedEmployee(h, tools);
    const r = await http(h, 'POST', '/api/v1/events/bulk', {
      token: tools.token,
      body: { event: event(h, { event_type: `${tools.prefix}alert.fired`, ...over }), recipients: [{ type: 'email', email: employee.user.email }] },
    });
    expectProblem(r, 400, 'schema_invalid', 'validation-failed');
    expect(fieldCodes(r)).toEqual([{ field: `event.${field}`, code }]);
    expectNoSecretEcho(r);
    expect(await sql('select id from deliveries where recipient_user_id = ?', [employee.user.userId])).toEqual([]);
    expect(await sql('select id from notifications where user_id = ?', [employee.user.userId])).toEqual([]);
  });
});

describe('MCP broadcast_event (actions carry URLs)', () => {
  it.each(SECRET_URLS.filter(([, over]) => over.actions !== undefined))(
    '%s: INVALID_INPUT naming the field; nothing delivered',
    async (_name, over, field, code) => {
      const tools = await adminTools(h);
      const employee = await claimedEmployee(h, tools);
      const agent = await newAgent(h, ['admin:broadcast'], tools.admin);
      const data = await toolInvalid(
        h,
        agent.token,
        'broadcast_event',
        {
          event_type: `${tools.prefix}maintenance.planned`,
          severity: 'info',
          title: 'Maintenance tonight',
          recipients: [employee.user.email],
          tools_token_id: tools.tokenId,
          actions: over.actions,
        },
        field,
      );
      expect(data.errors.map((e) => `${e.field}:${e.code}`)).toEqual([`${field}:${code}`]);
      expect(JSON.stringify(data)).not.toContain('SECRET');
      expect(await sql('select id from deliveries where recipient_user_id = ?', [employee.user.userId])).toEqual([]);
    },
  );
});

describe('catalog item url (POST and PATCH /api/v1/catalog/items; MCP catalog_item_* share the schema): no credentials stored either', () => {
  const catalogSecrets: Array<[string, string]> = [
    ['https://admin:SECRET@vault.example.test/app', 'credential_userinfo'],
    ['https://vault.example.test/app?api_key=SECRET', 'credential_param'],
    ['https://vault.example.test/app#access_token=SECRET', 'credential_param'],
  ];

  it.each(catalogSecrets)('create with %s: 400 naming url; no row', async (url, code) => {
    const tools = await adminTools(h);
    const slug = `${tools.integratorSlug}.vault-${Date.now().toString(36)}`;
    const r = await http(h, 'POST', '/api/v1/catalog/items', { token: tools.token, body: { slug, name: 'Vault', type: 'api_key', url } });
    expectProblem(r, 400, 'schema_invalid', 'validation-failed');
    expect(fieldCodes(r)).toEqual([{ field: 'url', code }]);
    expectNoSecretEcho(r);
    expect(await sql('select id from catalog_items where slug = ?', [slug])).toEqual([]);
  });

  it.each(catalogSecrets)('patch with %s: 400 naming url; the row keeps its url', async (url, code) => {
    const tools = await adminTools(h);
    const r = await http(h, 'PATCH', `/api/v1/catalog/items/${encodeURIComponent(tools.catalogSlug)}`, { token: tools.token, body: { url } });
    expectProblem(r, 400, 'schema_invalid', 'validation-failed');
    expect(fieldCodes(r)).toEqual([{ field: 'url', code }]);
    expect(await sql('select url from catalog_items where slug = ?', [tools.catalogSlug])).toEqual([{ url: null }]);
  });

  it('a plain URL, an anchor, or free text stays accepted', async () => {
    const tools = await adminTools(h);
    for (const url of ['https://vault.example.test/app#getting-started', '/team-support?tab=assets', 'ask #it-help']) {
      const r = await http(h, 'PATCH', `/api/v1/catalog/items/${encodeURIComponent(tools.catalogSlug)}`, { token: tools.token, body: { url } });
      expect(r.status, r.text).toBe(200);
      expect(r.body.item.url).toBe(url);
    }
  });
});
