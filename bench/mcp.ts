// /mcp benchmark (agent protocol issue): tools/call whoami throughput and list_inbox latency for a user
// with 10,000 notifications, plus a 20-call batch; real PostgreSQL and Redis, service in a child
// process, enough agent tokens that the 60/min per-token window is never reached.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { createDatabase, REDIS_URL } from '../test/helpers/harness.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_MCP_SECONDS ?? 8);
const TOKENS = Number(process.env.BENCH_MCP_TOKENS ?? 400);

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

async function main(): Promise<number> {
  const db = await createDatabase();
  const port = await freePort();
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), GRPC_PORT: String(await freePort()), HOST: '127.0.0.1', DATABASE_URL: db.url, REDIS_URL, LOG_LEVEL: 'warn', WORKER: 'off' },
    stdio: 'ignore',
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 300 && (await fetch(`${base}/api/v1/health`).then((r) => r.status, () => 0)) !== 200; i++) await new Promise((r) => setTimeout(r, 200));
    const setup = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }, 'bench'), { role: 'cli' });
    const email = `mcp-bench-${Date.now()}@example.test`;
    const user = (await runOperator(setup, 'users.create', { email, name: 'MCP bench' })).output as { userId: string };
    const tokens: string[] = [];
    for (let i = 0; i < TOKENS; i++) tokens.push(((await runOperator(setup, 'agent_tokens.create', { email, scopes: ['read:inbox'] })).output as { token: string }).token);
    await setup.orm.em.getConnection().execute(
      `insert into notifications (id, user_id, type, title, created_at, updated_at)
       select gen_random_uuid(), ?, 'system', 'Notification ' || g, now() - (g || ' seconds')::interval, now() from generate_series(1, 10000) g`,
      [user.userId],
    );
    await setup.close();

    let next = 0;
    const run = async (title: string, body: unknown) => {
      const r = await autocannon({
        url: `${base}/mcp`,
        connections: 50,
        duration: SECONDS,
        timeout: 10,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tokens[next++ % tokens.length]}` },
              body: JSON.stringify(body),
            }),
          },
        ],
      });
      return { title, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
    };

    const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    const rows = [await run('tools/call whoami', call(1, 'whoami'))];
    rows.push(await run('tools/call list_inbox (10,000 rows, limit 50)', call(1, 'list_inbox', { limit: 50 })));
    next = 0;
    rows.push(await run('batch of 20 calls (list_inbox)', Array.from({ length: 20 }, (_, i) => call(i + 1, 'list_inbox', { limit: 20 }))));
    console.table(rows);
    const who = rows[0]!;
    const inbox = rows[1]!;
    console.log(`target whoami >= 2000 calls/s: ${who.rps} -> ${who.rps >= 2000 ? 'PASS' : 'MISS'}`);
    console.log(`target list_inbox p99 <= 25 ms: ${inbox.p99} ms -> ${inbox.p99 <= 25 ? 'PASS' : 'MISS'}`);
    return rows.some((r) => r.non2xx > 0 || r.errors > 0) ? 1 : 0;
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    server.kill('SIGKILL');
    await db.drop().catch(() => undefined);
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
