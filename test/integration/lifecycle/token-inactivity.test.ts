// Token inactivity expiry (SPEC "Personal token lifecycle": `active` -> `auto_expired` after 12
// months without use, a daily scan, owner warned by mail 30 days ahead; Authentication 3 and 6;
// Limits "Token inactivity expiry 12 months, personal and agent tokens"; audit key
// `inbound.token.auto_expired`). The maintenance tasks run as the job queue runs them
// (`task.run(deps, now)`), the clock is moved instead of waiting, and mail goes over SMTP to a real
// local receiver. WORKER=off: no background run races the ones the tests make.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, http, newPersonalToken, operator, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { call, mcp } from '../mcp/rpc.js';
import { tokenInactivityScanTask } from '../../../src/domain/tokens/inactivity-scan.js';
import { mailOutboxTask } from '../../../src/infra/mail/mail-outbox.js';
import { MAINTENANCE_TASKS } from '../../../src/app/maintenance-tasks.js';
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from './smtp-receiver.js';

const DAY = 24 * 60 * 60 * 1000;
const MIN = 60 * 1000;

let h: Harness;
let smtp: SmtpReceiver;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  // The clock moves about 7 years ahead over the file and writes audit rows: their months' partitions at start-up.
  h = await startHarness({ env: { WORKER: 'off', SMTP_URL: smtp.url, MAIL_FROM: 'fluxdesk tests <noreply@example.test>', PARTITION_MONTHS_AHEAD: '90' } });
});
afterAll(async () => {
  await h?.close();
  await smtp?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;
const scan = () => tokenInactivityScanTask.run(h.svc.deps, h.clock.now());
const sendMail = () => mailOutboxTask.run(h.svc.deps, h.clock.now());
const outbox = (tokenId: string) => sql(`select * from mail_outbox where token_id = ? order by created_at`, [tokenId]);
const audits = (action: string, tokenId: string) => sql(`select * from audit_log where action = ? and token_id = ?`, [action, tokenId]);
const inboundStatus = async (tokenId: string) => (await sql(`select status from inbound_tokens where id = ?`, [tokenId]))[0].status as string;

/** Quoted-printable bytes (`=XX`) to UTF-8 text. */
const qp = (s: string) =>
  Buffer.from(
    s.replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

/** The message as a reader sees it: headers unfolded and RFC 2047 words decoded, body quoted-printable decoded. */
function readable(m: ReceivedMail): string {
  const at = m.raw.indexOf('\r\n\r\n');
  const headers = m.raw
    .slice(0, at)
    .replace(/\r\n(?=[ \t])/g, '')
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?([^?]*)\?=/gi, (_, w: string) => qp(w.replace(/_/g, ' ')));
  return `${headers}\r\n\r\n${qp(m.raw.slice(at + 4).replace(/=\r\n/g, ''))}`;
}

describe('registry', () => {
  it('registers the daily scan and the mail outbox sender as maintenance tasks', () => {
    const byName = new Map(MAINTENANCE_TASKS.map((t) => [t.name, t]));
    expect(byName.get('tokens.inactivity-scan')?.everySeconds).toBe(86_400);
    expect(byName.get('mail.outbox')?.everySeconds).toBe(60);
  });
});

describe('personal tokens', () => {
  it('warns the owner once, 30 days ahead, then expires the token after 12 months without use (401 token_revoked)', async () => {
    const t = await newPersonalToken(h);
    const prefix = (await sql(`select display_prefix from inbound_tokens where id = ?`, [t.tokenId]))[0].display_prefix as string;
    const created = h.clock.now();

    // 334 days without use: too early for the warning.
    h.clock.advance(334 * DAY);
    await scan();
    expect(await outbox(t.tokenId)).toHaveLength(0);

    // 335 days (12 months minus 30 days): one warning, queued then sent over SMTP.
    h.clock.advance(DAY + MIN);
    const r = await scan();
    expect(r.warningsQueued).toBeGreaterThanOrEqual(1);
    let rows = await outbox(t.tokenId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'queued', kind: 'token_inactivity_warning', to_address: t.user.email });
    await sendMail();
    rows = await outbox(t.tokenId);
    expect(rows[0]).toMatchObject({ status: 'sent', attempts: 1 });
    expect(rows[0].sent_at).not.toBeNull();

    const mails = smtp.to(t.user.email);
    expect(mails).toHaveLength(1);
    const text = readable(mails[0]!);
    const expiry = new Date(created.getTime() + 365 * DAY).toISOString().slice(0, 10);
    expect(text).toContain(`Subject: fluxdesk: your personal event token "test" expires on ${expiry}`);
    expect(text).toContain('From: fluxdesk tests <noreply@example.test>');
    expect(text).toContain(`${prefix}...`);
    expect(text).toContain(`Message-ID: <${rows[0].id}@127.0.0.1>`);
    // Never the token value, nor any part of it beyond the display prefix.
    expect(mails[0]!.raw).not.toContain(t.token);
    expect(text).not.toContain(t.token.slice(prefix.length, prefix.length + 12));

    // A re-run the same day, the next day and a week later: no second warning for this cycle.
    await scan();
    h.clock.advance(DAY);
    await scan();
    h.clock.advance(7 * DAY);
    await scan();
    await sendMail();
    expect(await outbox(t.tokenId)).toHaveLength(1);
    expect(smtp.to(t.user.email)).toHaveLength(1);
    expect(await inboundStatus(t.tokenId)).toBe('active');
    expect((await publish(h, t.token, event(h))).status).toBe(202);
  });

  it('a use starts a new cycle: no expiry at the old date, a new warning 11 months after the use', async () => {
    const t = await newPersonalToken(h);
    h.clock.advance(336 * DAY);
    await scan();
    expect(await outbox(t.tokenId)).toHaveLength(1);

    // The owner's system sends an event: last use moves to now (written just after the call).
    expect((await publish(h, t.token, event(h))).status).toBe(202);
    await h.svc.deps.ports.tokens.lastUse.settled();

    // The old expiry date passes: the token stays active.
    h.clock.advance(40 * DAY);
    await scan();
    expect(await inboundStatus(t.tokenId)).toBe('active');
    expect(await outbox(t.tokenId)).toHaveLength(1);

    // 335 days after that use: the new cycle's warning.
    h.clock.advance(296 * DAY);
    await scan();
    const rows = await outbox(t.tokenId);
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.dedupe_key)).size).toBe(2);
    await sendMail();
    expect(smtp.to(t.user.email)).toHaveLength(2);
  });

  it('expires an unused token at 12 months: status auto_expired, audit inbound.token.auto_expired, 401 token_revoked', async () => {
    const t = await newPersonalToken(h);
    const disabled = await newPersonalToken(h);
    await sql(`update inbound_tokens set status = 'disabled' where id = ?`, [disabled.tokenId]);

    h.clock.advance(365 * DAY - MIN);
    await scan();
    expect(await inboundStatus(t.tokenId)).toBe('active');

    h.clock.advance(2 * MIN);
    const r = await scan();
    expect(r.expiredInbound).toBeGreaterThanOrEqual(1);
    expect(await inboundStatus(t.tokenId)).toBe('auto_expired');
    const [a, ...more] = await audits('inbound.token.auto_expired', t.tokenId);
    expect(more).toHaveLength(0);
    expect(a).toMatchObject({ source: 'maintenance', target_type: 'inbound_token', target_id: t.tokenId, actor_user_id: null });
    expect(a.summary).toMatchObject({ kind: 'personal', owner_user_id: t.user.userId, label: 'test', reason: 'unused for 12 months' });
    expect(JSON.stringify(a.summary)).not.toContain(t.token);

    // The spec's 401 code for a disabled, revoked or expired token.
    const res = await publish(h, t.token, event(h));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('token_revoked');
    expect((await http(h, 'GET', '/api/v1/event-types', { token: t.token })).status).toBe(401);

    // Idempotent: a second run neither re-expires nor re-audits. A disabled token is left alone
    // (the state table expires `active` tokens).
    await scan();
    expect(await audits('inbound.token.auto_expired', t.tokenId)).toHaveLength(1);
    expect(await inboundStatus(disabled.tokenId)).toBe('disabled');
  });

  it('refuses a token past 12 months without use even before the daily scan has marked it (no comeback by use)', async () => {
    const t = await newPersonalToken(h);
    h.clock.advance(365 * DAY + MIN);
    expect(await inboundStatus(t.tokenId)).toBe('active');
    const res = await publish(h, t.token, event(h));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('token_revoked');
    // The refused attempt is not a use: the scan still expires it.
    await scan();
    expect(await inboundStatus(t.tokenId)).toBe('auto_expired');
  });

  it('does not mail owners who are no longer active', async () => {
    const t = await newPersonalToken(h);
    await sql(`update users set status = 'offboarded' where id = ?`, [t.user.userId]);
    h.clock.advance(340 * DAY);
    await scan();
    expect(await outbox(t.tokenId)).toHaveLength(0);
  });
});

describe('agent tokens', () => {
  it('warns 30 days ahead, then revokes after 12 months without use (401 token_revoked on /mcp)', async () => {
    const u = await operator<{ userId: string; email: string }>(h, 'users.create', {
      email: `agent-${Date.now()}@example.test`,
      name: 'Agent Owner',
      role: 'member',
    });
    const a = await operator<{ tokenId: string; token: string }>(h, 'agent_tokens.create', { email: u.email, label: 'my laptop' });
    expect((await mcp(h, call('whoami'), { token: a.token })).status).toBe(200);

    h.clock.advance(336 * DAY);
    await scan();
    await sendMail();
    const rows = await outbox(a.tokenId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'sent', to_address: u.email });
    const mails = smtp.to(u.email);
    expect(mails).toHaveLength(1);
    expect(readable(mails[0]!)).toContain('Subject: fluxdesk: your agent token "my laptop" expires on');
    expect(mails[0]!.raw).not.toContain(a.token);

    h.clock.advance(30 * DAY);
    const r = await scan();
    expect(r.expiredAgent).toBeGreaterThanOrEqual(1);
    const [row] = await sql(`select revoked_at from agent_tokens where id = ?`, [a.tokenId]);
    expect(row.revoked_at).not.toBeNull();
    const [audit, ...more] = await audits('agent.token.auto_expired', a.tokenId);
    expect(more).toHaveLength(0);
    expect(audit).toMatchObject({ source: 'maintenance', target_type: 'agent_token' });

    const res = await mcp(h, call('whoami'), { token: a.token });
    expect(res.status).toBe(401);
    expect(res.body.error.data).toMatchObject({ code: 'token_revoked' });
    await scan();
    expect(await audits('agent.token.auto_expired', a.tokenId)).toHaveLength(1);
    expect(smtp.to(u.email)).toHaveLength(1);
  });
});
