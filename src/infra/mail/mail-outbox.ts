// Delivery of the mail outbox (`mail_outbox`, written by domain code in its own transactions):
// queued -> (claim) sending -> sent; on an error back to queued with a backoff, or failed once out of
// attempts; skipped when no SMTP_URL is configured. A claim is one `for update skip locked`
// statement, so concurrent deliverers never send a row twice; a row left in `sending` by a dead
// process is reclaimed after STALE_SENDING_MS (its Message-ID is the row id, so a receiver can drop
// the replay). Time is the caller's `now` (the injected clock).
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { Logger } from '../../domain/context.js';
import type { Mailer } from './mailer.js';

export const MAIL_MAX_ATTEMPTS = 5;
const RETRY_BASE_MS = 60_000;
const RETRY_MAX_MS = 60 * 60_000;
const STALE_SENDING_MS = 10 * 60_000;

export interface MailDeliveryOptions {
  /** null = no SMTP_URL: queued mails are recorded as skipped. */
  mailer: Mailer | null;
  now: Date;
  batchSize?: number;
  maxAttempts?: number;
  log?: Logger;
}

export interface MailDeliveryResult {
  sent: number;
  failed: number;
  retrying: number;
  skipped: number;
}

interface ClaimedRow {
  id: string;
  to_address: string;
  subject: string;
  body_text: string;
  attempts: number;
}

/** Retry delay after the n-th failed attempt: 1 min, 2, 4, ... capped at 1 h. */
export const mailRetryDelayMs = (attempts: number) => Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));

/** Sends (or skips) what is due; loops until no due row is left. */
export async function deliverMailOutbox(em: EntityManager, o: MailDeliveryOptions): Promise<MailDeliveryResult> {
  const conn = em.getConnection();
  const now = o.now.toISOString();
  const out: MailDeliveryResult = { sent: 0, failed: 0, retrying: 0, skipped: 0 };
  if (!o.mailer) {
    const rows = (await conn.execute(
      `update mail_outbox set status = 'skipped', updated_at = ?::timestamptz, last_error = 'no SMTP_URL configured' where status = 'queued' returning id`,
      [now],
      'all',
    )) as { id: string }[];
    out.skipped = rows.length;
    return out;
  }
  const batch = o.batchSize ?? 50;
  const maxAttempts = o.maxAttempts ?? MAIL_MAX_ATTEMPTS;
  for (;;) {
    const claimed = (await conn.execute(
      `update mail_outbox m set status = 'sending', attempts = m.attempts + 1, updated_at = ?::timestamptz
        where m.id in (
          select id from mail_outbox
           where (status = 'queued' and next_attempt_at <= ?::timestamptz) or (status = 'sending' and updated_at <= ?::timestamptz)
           order by next_attempt_at limit ? for update skip locked)
        returning m.id, m.to_address, m.subject, m.body_text, m.attempts`,
      [now, now, new Date(o.now.getTime() - STALE_SENDING_MS).toISOString(), batch],
      'all',
    )) as ClaimedRow[];
    for (const row of claimed) {
      try {
        await o.mailer.send({ id: row.id, to: row.to_address, subject: row.subject, text: row.body_text });
        await conn.execute(
          `update mail_outbox set status = 'sent', sent_at = ?::timestamptz, updated_at = ?::timestamptz, last_error = null where id = ?`,
          [now, now, row.id],
          'run',
        );
        out.sent++;
      } catch (err) {
        const message = String((err as Error).message ?? err).slice(0, 500);
        const final = row.attempts >= maxAttempts;
        await conn.execute(
          `update mail_outbox set status = ?, last_error = ?, updated_at = ?::timestamptz, next_attempt_at = ?::timestamptz where id = ?`,
          [final ? 'failed' : 'queued', message, now, new Date(o.now.getTime() + mailRetryDelayMs(row.attempts)).toISOString(), row.id],
          'run',
        );
        if (final) out.failed++;
        else out.retrying++;
        o.log?.warn({ mailId: row.id, attempt: row.attempts, final, err: { message } }, 'mail delivery failed');
      }
    }
    if (claimed.length < batch) return out;
  }
}

/** The MaintenanceTask (src/app/maintenance-tasks.ts) behind the job `mail.outbox`: sends what is due every minute. */
export const mailOutboxTask = {
  name: 'mail.outbox',
  everySeconds: 60,
  run: async (deps: { orm: MikroORM; mailer?: Mailer | null; log: Logger }, now: Date): Promise<{ processed: number } & MailDeliveryResult> => {
    const r = await deliverMailOutbox(deps.orm.em.fork(), { mailer: deps.mailer ?? null, now, log: deps.log });
    return { processed: r.sent + r.failed + r.retrying + r.skipped, ...r };
  },
};
