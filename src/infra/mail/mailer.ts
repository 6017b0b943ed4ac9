// Outgoing mail over SMTP (nodemailer) to the relay named by SMTP_URL
// (`smtp://user:pass@host:587`, `smtps://host:465`; nodemailer's URL options such as
// `?tls.rejectUnauthorized=false` apply). The service only sends its own notices (token inactivity
// warnings) and never puts a token value in a mail. Every mail goes through the `mail_outbox`
// table first (see mail-outbox.ts); with no SMTP_URL there is no Mailer and queued mails are
// recorded as `skipped`.
import nodemailer from 'nodemailer';
import SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';

export interface OutgoingMail {
  /** The outbox row id; becomes the Message-ID, so a receiver can drop a replay after a crash. */
  id: string;
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Resolves once the relay accepted the message; rejects with the relay's or the network's error. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export interface SmtpMailerOptions {
  url: string;
  /** `From` header, e.g. `fluxdesk <no-reply@example.com>`. */
  from: string;
  /** Connect, greeting and idle-socket deadline. */
  timeoutMs?: number;
  /** Domain of generated Message-IDs. */
  messageIdDomain?: string;
}

export function createSmtpMailer(o: SmtpMailerOptions): Mailer {
  const timeout = o.timeoutMs ?? 15_000;
  // The transport object (not the bare URL) keeps our deadlines: nodemailer's defaults wait minutes.
  const transport = nodemailer.createTransport(
    new SMTPTransport({ url: o.url, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout * 2 }),
  );
  const domain = o.messageIdDomain ?? 'fluxdesk.invalid';
  return {
    async send(mail) {
      await transport.sendMail({ from: o.from, to: mail.to, subject: mail.subject, text: mail.text, messageId: `<${mail.id}@${domain}>` });
    },
    close() {
      transport.close();
    },
  };
}
