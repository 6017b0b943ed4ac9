// A real SMTP receiver for tests (the `smtp-server` package) on 127.0.0.1, port 0. It records
// every accepted message; recipients listed in `reject` are refused at RCPT TO (a 550 answer).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpReceiver {
  url: string;
  mails: ReceivedMail[];
  reject: Set<string>;
  /** Mails to one address. */
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const reject = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: no certificate to trust.
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (reject.has(address.address.toLowerCase())) return cb(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    reject,
    to: (address) => mails.filter((m) => m.to.includes(address.toLowerCase())),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
