// `npm run bench:wait`: agents that wait instead of polling. N users (default 200) each have an
// agent waiting in `wait_for_inbox` (timeoutSeconds 7) on the service in a child process; once all
// wait, one event is published to each user at once. Prints the service's RSS before the waiters
// and while they wait, and how long after its own publish each waiter answered (p50, p99, max,
// how many saw their event). Real PostgreSQL and Redis; a measurement, never a test.
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { createDatabase } from '../test/helpers/harness.js';
import { runBench, startBenchServer } from './service.js';
import { procStatusMb } from './cpu.js';

const WAITERS = Number(process.env.BENCH_WAITERS ?? 200);

interface Person {
  inbound: string;
  agent: string;
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;

async function mcp(base: string, token: string, name: string, args: Record<string, unknown>): Promise<any> {
  const r = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = (await r.json()) as any;
  if (body.error || body.result?.isError) throw new Error(`${name}: ${JSON.stringify(body).slice(0, 300)}`);
  return JSON.parse(body.result.content[0].text);
}

async function main(): Promise<number> {
  const db = await createDatabase();
  const server = await startBenchServer(db.url, { WORKER: 'off' });
  try {
    const setup = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }, 'bench'), { role: 'cli' });
    const people: Person[] = [];
    const make = async (i: number): Promise<Person> => {
      const email = `wait-bench-${i}-${Date.now()}@example.test`;
      const op = async (name: string, input: Record<string, unknown>) => {
        const r = await runOperator(setup, name, input);
        if (!r.ok) throw new Error(JSON.stringify(r.error));
        return r.output as { token: string };
      };
      await op('users.create', { email, name: `Waiter ${i}` });
      const inbound = (await op('tokens.create_personal', { email, label: 'wait-bench', daily_limit: 1000 })).token;
      const agent = (await op('agent_tokens.create', { email, scopes: ['read:inbox'] })).token;
      return { inbound, agent };
    };
    for (let i = 0; i < WAITERS; i += 16) people.push(...(await Promise.all(Array.from({ length: Math.min(16, WAITERS - i) }, (_, k) => make(i + k)))));
    await setup.close();

    const cursors = await Promise.all(people.map((p) => mcp(server.baseUrl, p.agent, 'wait_for_inbox', {}).then((r) => r.cursor as string)));
    const rssBefore = procStatusMb(server.proc.pid!, 'VmRSS');
    const publishedAt = new Map<number, number>();
    const waits = people.map((p, i) =>
      mcp(server.baseUrl, p.agent, 'wait_for_inbox', { after: cursors[i], timeoutSeconds: 7 }).then((r) => ({
        i,
        at: Date.now(),
        saw: (r.items as unknown[]).length > 0,
      })),
    );
    // Let every waiter reach its subscription, then read the RSS while they all wait.
    await new Promise((r) => setTimeout(r, 1500));
    const rssWaiting = procStatusMb(server.proc.pid!, 'VmRSS');
    await Promise.all(
      people.map(async (p, i) => {
        publishedAt.set(i, Date.now());
        const r = await fetch(`${server.baseUrl}/api/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${p.inbound}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            spec_version: '2',
            event_id: `wait-${i}`,
            event_type: 'personal.bench.wait',
            severity: 'info',
            title: `For waiter ${i}`,
            occurred_at: new Date(Date.now() - 1000).toISOString(),
          }),
        });
        if (r.status !== 202) throw new Error(`publish ${r.status}`);
      }),
    );
    const answers = await Promise.all(waits);
    const latencies = answers.filter((a) => a.saw).map((a) => a.at - publishedAt.get(a.i)!);
    console.table([
      {
        waiters: WAITERS,
        'RSS before (MB)': rssBefore.toFixed(0),
        'RSS waiting (MB)': rssWaiting.toFixed(0),
        'RSS delta (MB)': (rssWaiting - rssBefore).toFixed(1),
        'saw their event': `${latencies.length}/${WAITERS}`,
        'p50 ms': percentile(latencies, 50),
        'p99 ms': percentile(latencies, 99),
        'max ms': Math.max(...latencies),
      },
    ]);
    return 0;
  } finally {
    await server.stop();
    await db.drop();
  }
}

runBench(main);
