// Local HTTP receivers (127.0.0.1) standing in for chat webhooks and browser push services.
// Every request is recorded; the answer per path prefix is scripted (status, or hang for a while).
import http from 'node:http';
import { createECDH, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
// http_ece is what web-push encrypts with; the test decrypts like a browser would.
import ece from 'http_ece';

export interface Hit {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  at: number;
  /** The sender's socket port: equal ports mean one kept-alive connection. */
  remotePort: number;
}

export interface Behaviour {
  status?: number;
  /** Answer only after this long (a slow receiver). */
  delayMs?: number;
  /** A Location header (with a 3xx status: a redirect the sender must not follow). */
  location?: string;
  /** Send the status line and part of the body, then stall until closed. */
  stallBody?: boolean;
}

export interface Receiver {
  url: string;
  hits: Hit[];
  /** Requests received but not answered yet. */
  pending(): number;
  /** Scripts the answer for paths starting with `prefix` (default: 200 at once). */
  behave(prefix: string, b: Behaviour): void;
  hitsFor(prefix: string): Hit[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hits: Hit[] = [];
  const rules = new Map<string, Behaviour>();
  let pending = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      hits.push({ path, headers: req.headers, body: Buffer.concat(chunks), at: Date.now(), remotePort: req.socket.remotePort ?? 0 });
      const rule = [...rules.entries()].filter(([p]) => path.startsWith(p)).sort((a, b) => b[0].length - a[0].length)[0]?.[1] ?? {};
      const answer = () => {
        pending--;
        if (res.destroyed) return;
        res.writeHead(rule.status ?? 201, { 'content-type': 'text/plain', ...(rule.location ? { location: rule.location } : {}) });
        if (rule.stallBody) res.write('o');
        else res.end('ok');
      };
      pending++;
      if (rule.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          answer();
        }, rule.delayMs);
        timers.add(t);
      } else answer();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    pending: () => pending,
    behave: (prefix, b) => void rules.set(prefix, b),
    hitsFor: (prefix) => hits.filter((h) => h.path.startsWith(prefix)),
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A browser-side push subscription: its keys, and decryption of what the push service received. */
export function browserSubscription(endpoint: string) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    endpoint,
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: auth.toString('base64url'),
    decrypt(body: Buffer): unknown {
      const plain = ece.decrypt(body, { version: 'aes128gcm', privateKey: ecdh, authSecret: auth.toString('base64url') });
      return JSON.parse(Buffer.from(plain).toString('utf8'));
    },
  };
}

/** Polls `check` until it returns a value other than undefined/false, or fails at the deadline. */
export async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
