// The mail outbox (`mail_outbox`): every mail is recorded first, then `sent`, `failed` (attempts used
// up) or `skipped` (no SMTP_URL configured). This service runs WITHOUT SMTP_URL; the sending paths use
// an SMTP mailer pointed at a real local receiver (smtp-server) that can refuse a recipient.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPersonalToken, startHarness, type Harness } from '../../helpers/harness.js';
import { tokenInactivityScanTask } from '../../../src/domain/tokens/inactivity-scan.js';
import { deliverMailOutbox, mailOutboxTask, mailRetryDelayMs, MAIL_MAX_ATTEMPTS } from '../../../src/infra/mail/mail-outbox.js';
import { createSmtpMailer, type Mailer } from '../../../src/infra/mail/mailer.js';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.js';

const DAY = 24 * 60 * 60 * 1000;

let h: Harness;
let smtp: SmtpReceiver;
let mailer: Mailer;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  mailer = createSmtpMailer({ url: smtp.url, from: 'fluxdesk <noreply@example.test>', timeoutMs: 5000 });
  // The clock moves about three years ahead over the file and writes audit rows: their months' partitions at start-up.
  h = await startHarness({ env: { WORKER: 'off', PARTITION_MONTHS_AHEAD: '48' } });
});
afterAll(async () => {
  mailer?.close();
  await h?.close();
  await smtp?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;
const outbox = (tokenId: string) => sql(`select * from mail_outbox where token_id = ? order by created_at`, [tokenId]);
const deliver = () => deliverMailOutbox(h.svc.deps.orm.em.fork(), { mailer, now: h.clock.now() });

/** A token whose warning mail is queued (the scan ran 336 days after its creation). */
async function warnedToken() {
  const t = await newPersonalToken(h);
  h.clock.advance(336 * DAY);
  await tokenInactivityScanTask.run(h.svc.deps, h.clock.now());
  const rows = await outbox(t.tokenId);
  expect(rows).toHaveLength(1);
  expect(rows[0].status).toBe('queued');
  return t;
}

describe('mail outbox', () => {
  it('without SMTP_URL the service records the mail as skipped', async () => {
    expect(h.svc.deps.mailer).toBeNull();
    const t = await warnedToken();
    const r = await mailOutboxTask.run(h.svc.deps, h.clock.now());
    expect(r.skipped).toBeGreaterThanOrEqual(1);
    const [row] = await outbox(t.tokenId);
    expect(row).toMatchObject({ status: 'skipped', attempts: 0, last_error: 'no SMTP_URL configured', sent_at: null });
    expect(row.subject).toContain('"test"');
    // Skipped is final: a later delivery with a mailer does not send it.
    await deliver();
    expect(smtp.to(t.user.email)).toHaveLength(0);
  });

  it('a refused recipient is retried with backoff, then ends failed after the last attempt', async () => {
    const t = await warnedToken();
    smtp.reject.add(t.user.email.toLowerCase());
    for (let attempt = 1; attempt <= MAIL_MAX_ATTEMPTS; attempt++) {
      const r = await deliver();
      const [row] = await outbox(t.tokenId);
      expect(row.attempts).toBe(attempt);
      expect(row.last_error).toMatch(/550|mailbox unavailable/);
      if (attempt < MAIL_MAX_ATTEMPTS) {
        expect(r.retrying).toBe(1);
        expect(row.status).toBe('queued');
        // Not due again before its backoff has passed.
        expect((await deliver()).retrying).toBe(0);
        h.clock.advance(mailRetryDelayMs(attempt));
      } else {
        expect(r.failed).toBe(1);
        expect(row.status).toBe('failed');
      }
    }
    smtp.reject.delete(t.user.email.toLowerCase());
    h.clock.advance(DAY);
    await deliver();
    expect(smtp.to(t.user.email)).toHaveLength(0);
    expect((await outbox(t.tokenId))[0].status).toBe('failed');
  });

  it('a transient refusal is sent on the next attempt', async () => {
    const t = await warnedToken();
    smtp.reject.add(t.user.email.toLowerCase());
    await deliver();
    smtp.reject.delete(t.user.email.toLowerCase());
    h.clock.advance(mailRetryDelayMs(1));
    expect((await deliver()).sent).toBe(1);
    const [row] = await outbox(t.tokenId);
    expect(row).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
    expect(smtp.to(t.user.email)).toHaveLength(1);
  });

  it('two deliverers at once send each mail once', async () => {
    const tokens = [await newPersonalToken(h), await newPersonalToken(h), await newPersonalToken(h)];
    h.clock.advance(336 * DAY);
    await tokenInactivityScanTask.run(h.svc.deps, h.clock.now());
    const em = h.svc.deps.orm.em;
    const [a, b] = await Promise.all([
      deliverMailOutbox(em.fork(), { mailer, now: h.clock.now(), batchSize: 1 }),
      deliverMailOutbox(em.fork(), { mailer, now: h.clock.now(), batchSize: 1 }),
    ]);
    expect(a.sent + b.sent).toBeGreaterThanOrEqual(3);
    for (const t of tokens) {
      expect(smtp.to(t.user.email)).toHaveLength(1);
      expect((await outbox(t.tokenId))[0]).toMatchObject({ status: 'sent', attempts: 1 });
    }
  });
});
