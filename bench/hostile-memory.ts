// `npx tsx bench/hostile-memory.ts`: peak RSS of the service (target <= 300 MB) while 8 clients at
// once send 64 MB bodies to each listener, unauthenticated, with an unknown token, and with a valid
// one (with and without a length). Exit code 1 when the peak is over the target or an upload was
// not refused with the expected code. Scenarios and how the peak is read: bench/README.md,
// "hostile-memory".
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { createDatabase, REDIS_URL } from '../test/helpers/harness.js';
import { freePort, ROOT } from './service.js';
import { procStatusMb } from './cpu.js';

const MB = 1024 * 1024;
const BODY = Number(process.env.HOSTILE_BODY_MB ?? 64) * MB;
const CLIENTS = Number(process.env.HOSTILE_CLIENTS ?? 8);
const TARGET_MB = 300;
/** The heap settings `npm start` gives Node (package.json). */
const NODE_FLAGS = ['--max-semi-space-size=32', '--max-old-space-size=256'];
const PUBLISH = '/fluxdesk.events.v1.EventService/Publish';
const CHUNK = Buffer.alloc(MB, 0x5a);

const log = (msg: string) => process.stderr.write(`[hostile] ${msg}\n`);

const status = procStatusMb;

interface Upload {
  /** HTTP status (HTTP/1.1) or grpc-status (h2), or the error that ended it. */
  outcome: string;
  sent: number;
}

/** A Connect POST over HTTP/1.1; `length` false sends it chunked. */
function h1Upload(port: number, headers: Record<string, string>, length: boolean): Promise<Upload> {
  return new Promise((resolve) => {
    let sent = 0;
    let answered = false;
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: PUBLISH,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/proto', 'connect-protocol-version': '1', ...(length ? { 'content-length': String(BODY) } : {}), ...headers },
      },
      (res) => {
        answered = true;
        res.resume();
        res.on('end', () => {
          resolve({ outcome: `http ${res.statusCode}`, sent });
          req.destroy();
        });
      },
    );
    req.on('error', (err) => answered || resolve({ outcome: `error ${(err as NodeJS.ErrnoException).code ?? err.message}`, sent }));
    const pump = () => {
      while (!answered && !req.destroyed && sent < BODY) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once('drain', pump);
      }
      if (!answered && !req.destroyed) req.end();
    };
    pump();
  });
}

/** A gRPC call over h2c: one frame whose prefix declares the whole body, or 1 MB frames (`framed`). */
function grpcUpload(port: number, headers: Record<string, string>, framed: boolean): Promise<Upload> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  return new Promise<Upload>((resolve) => {
    let sent = 0;
    let closed = false;
    let grpcStatus: string | undefined;
    session.on('error', () => undefined);
    const stream = session.request({ ':method': 'POST', ':path': PUBLISH, 'content-type': 'application/grpc', te: 'trailers', ...headers });
    stream.on('response', (h) => (grpcStatus ??= h['grpc-status'] as string | undefined));
    stream.on('trailers', (t) => (grpcStatus = t['grpc-status'] as string | undefined));
    stream.on('error', () => undefined);
    stream.on('close', () => {
      closed = true;
      resolve({ outcome: grpcStatus !== undefined ? `grpc-status ${grpcStatus}` : `reset ${stream.rstCode}`, sent });
    });
    stream.resume();
    const prefix = (n: number) => {
      const p = Buffer.alloc(5);
      p.writeUInt32BE(n, 1);
      return p;
    };
    if (!framed) stream.write(prefix(BODY));
    const pump = () => {
      while (!closed && sent < BODY) {
        sent += CHUNK.length;
        const ok = framed ? stream.write(prefix(CHUNK.length)) && stream.write(CHUNK) : stream.write(CHUNK);
        if (!ok) return void stream.once('drain', pump);
      }
      if (!closed) stream.end();
    };
    pump();
  }).finally(() => session.close());
}

async function main(): Promise<number> {
  const db = await createDatabase();
  const [port, grpcPort] = [await freePort(), await freePort()];
  const proc = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), GRPC_PORT: String(grpcPort), HOST: '127.0.0.1', DATABASE_URL: db.url, REDIS_URL, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4000)));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  let failed = false;
  try {
    for (
      const deadline = Date.now() + 60_000;
      (await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
        (r) => r.status,
        () => 0,
      )) !== 200;
    ) {
      if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not start:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const setup = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }, 'bench'), { role: 'cli' });
    let token: string;
    try {
      const email = `hostile-${randomBytes(4).toString('hex')}@example.test`;
      const u = await runOperator(setup, 'users.create', { email, name: 'Hostile' });
      if (!u.ok) throw new Error(JSON.stringify(u.error));
      const t = await runOperator(setup, 'tokens.create_personal', { email, label: 'hostile', daily_limit: 200 });
      if (!t.ok) throw new Error(JSON.stringify(t.error));
      token = (t.output as { token: string }).token;
    } finally {
      await setup.close();
    }
    const pid = proc.pid!;
    log(`service pid ${pid}; after boot: RSS ${status(pid, 'VmRSS').toFixed(0)} MB, peak ${status(pid, 'VmHWM').toFixed(0)} MB`);
    log(`${CLIENTS} clients x ${BODY / MB} MB to each listener per scenario; target peak <= ${TARGET_MB} MB`);

    const unknown = { authorization: `Bearer svc-in-pers-${'q'.repeat(32)}` };
    const valid = { authorization: `Bearer ${token}` };
    const scenarios: Array<{ name: string; h1: () => Promise<Upload>; h2: () => Promise<Upload>; expect: [string, string] }> = [
      { name: 'unauthenticated', h1: () => h1Upload(port, {}, true), h2: () => grpcUpload(grpcPort, {}, false), expect: ['http 401', 'grpc-status 16'] },
      {
        name: 'unknown token',
        h1: () => h1Upload(port, unknown, true),
        h2: () => grpcUpload(grpcPort, unknown, false),
        expect: ['http 401', 'grpc-status 16'],
      },
      { name: 'valid token', h1: () => h1Upload(port, valid, true), h2: () => grpcUpload(grpcPort, valid, false), expect: ['http 429', 'grpc-status 8'] },
      // Chunked: no length to refuse on, refused once 256 KB arrived. 1 MB frames: each over the bound.
      { name: 'valid, no length', h1: () => h1Upload(port, valid, false), h2: () => grpcUpload(grpcPort, valid, true), expect: ['http 429', 'grpc-status 8'] },
    ];
    for (const s of scenarios) {
      let peakRss = 0;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, status(pid, 'VmRSS'))), 20);
      const t0 = Date.now();
      const [a, b] = await Promise.all([Promise.all(Array.from({ length: CLIENTS }, s.h1)), Promise.all(Array.from({ length: CLIENTS }, s.h2))]);
      clearInterval(sampler);
      const ms = Date.now() - t0;
      const outcomes = (r: Upload[]) => [...new Set(r.map((u) => u.outcome))].join(', ');
      const sent = (r: Upload[]) => (r.reduce((n, u) => n + u.sent, 0) / MB).toFixed(0);
      // A client still writing when the server closes the connection after its answer may see the
      // reset (EPIPE / ECONNRESET) before it reads the answer: refused as well.
      const ok = a.every((u) => u.outcome === s.expect[0] || /^error (EPIPE|ECONNRESET)$/.test(u.outcome)) && b.every((u) => u.outcome === s.expect[1]);
      failed ||= !ok;
      log(
        `${s.name.padEnd(17)} ${String(ms).padStart(5)} ms; PORT: ${outcomes(a)}, ${sent(a)} MB sent; GRPC_PORT: ${outcomes(b)}, ${sent(b)} MB sent; ` +
          `RSS peak ${peakRss.toFixed(0)} MB${ok ? '' : `  UNEXPECTED (want ${s.expect.join(' / ')})`}`,
      );
    }
    const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
      (r) => r.status,
      () => 0,
    );
    const hwm = status(pid, 'VmHWM');
    log(`after: health ${health}; RSS ${status(pid, 'VmRSS').toFixed(0)} MB; peak RSS (VmHWM, boot included) ${hwm.toFixed(0)} MB (target <= ${TARGET_MB})`);
    failed ||= health !== 200 || hwm > TARGET_MB;
  } finally {
    if (proc.exitCode === null) proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    await db.drop();
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
