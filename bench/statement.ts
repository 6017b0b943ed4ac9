// `npm run bench:statement`: the publish statement alone (writeDeliveries, the group commit's
// statement) without HTTP, Redis or the load generator: PostgreSQL CPU per row and per statement.
// On a shared box whose HTTP figures drift by ±20 % between runs, this is the figure that tells
// whether a change made PostgreSQL do less work. Knobs (STMT_*): bench/README.md, "bench:statement".
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { runOperator } from '../src/transports/cli/operator-socket.js';
import { writeDeliveries, writeRepeats, type RowContext } from '../src/domain/events/events.repository.js';
import type { NewDelivery } from '../src/domain/events/event-store.js';
import { createDatabase } from '../test/helpers/harness.js';
import { cpuSnap } from './cpu.js';

const num = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt);
const ROWS = num('STMT_ROWS', 16);
const N = num('STMT_N', 600);
const TOKENS = num('STMT_TOKENS', 1024);
const VERIFY = num('STMT_VERIFY', 1) === 1;
const BODY = num('STMT_BODY', 0) > 0 ? `# Build log\n${'step ok, '.repeat(1000).slice(0, num('STMT_BODY', 0) - 12)}` : null;

const db = await createDatabase();
const deps = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', DB_POOL_MAX: '4' }, 'bench'), { role: 'cli' });
try {
  const runId = randomBytes(4).toString('hex');
  const conn = deps.orm.em.getConnection();
  for (let i = 0; i < TOKENS; i++) {
    const email = `stmt-${runId}-${i}@example.test`;
    const u = await runOperator(deps, 'users.create', { email, name: `Stmt ${i}` });
    if (!u.ok) throw new Error(JSON.stringify(u.error));
    const t = await runOperator(deps, 'tokens.create_personal', { email, label: 'bench', daily_limit: 1000 });
    if (!t.ok) throw new Error(JSON.stringify(t.error));
  }
  const tokens = (await conn.execute(
    `select t.id, t.integrator_id, t.owner_user_id as user_id, t.xmin::text as token_ver, u.xmin::text as user_ver, i.xmin::text as integrator_ver
       from inbound_tokens t join users u on u.id = t.owner_user_id join integrators i on i.id = t.integrator_id order by t.id`,
  )) as Array<{ id: string; integrator_id: string; user_id: string; token_ver: string; user_ver: string; integrator_ver: string }>;
  const dbName = db.url.slice(db.url.lastIndexOf('/') + 1);
  const occurredAt = new Date(Date.now() - 60_000).toISOString();
  const item = (t: (typeof tokens)[number], eventId: string): NewDelivery => ({
    tokenId: t.id,
    integratorId: t.integrator_id,
    recipientUserId: t.user_id,
    projectId: null,
    eventId,
    eventType: 'personal.build.failed',
    severity: 'warn',
    tone: null,
    title: 'Build failed on main',
    summary: 'bench event',
    markdownBody: BODY,
    markdownBodyRendering: null,
    externalUrl: null,
    externalStatus: null,
    actor: undefined,
    labels: undefined,
    actions: undefined,
    recipientHint: undefined,
    recipient: undefined,
    locale: null,
    occurredAt,
  });
  // Statement s writes tokens [s*ROWS, s*ROWS + ROWS) mod TOKENS; event ids repeat per phase.
  const batch = (s: number, prefix: string) =>
    Array.from({ length: ROWS }, (_, r) => {
      const k = (s * ROWS + r) % TOKENS;
      const t = tokens[k]!;
      const row: RowContext = { now: new Date().toISOString(), source: 'api_v1', requestId: `req_${s}_${r}` };
      if (VERIFY) row.verify = { token: t.token_ver, user: t.user_ver, integrator: t.integrator_ver };
      return { item: item(t, `${prefix}-${s}`), row };
    });
  const day = new Date().toISOString().slice(0, 10);
  const phase = async (
    name: string,
    prefix: string,
    write: (b: ReturnType<typeof batch>) => Promise<unknown> = (b) => writeDeliveries(conn, undefined, b, { day }),
  ) => {
    const a = cpuSnap(undefined, dbName);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let s = 0; s < N; s++) await write(batch(s, prefix));
    const ms = performance.now() - t0;
    const b = cpuSnap(undefined, dbName);
    const c = process.cpuUsage(c0);
    const rows = N * ROWS;
    const pgUs = ((b.postgres - a.postgres) * 10_000) / rows;
    const clientUs = (c.user + c.system) / rows;
    console.log(
      `${name.padEnd(8)} ${rows} rows in ${N} statements of ${ROWS}: ${((ms * 1000) / rows).toFixed(1)} µs wall, PostgreSQL ${pgUs.toFixed(1)} µs CPU, client ${clientUs.toFixed(1)} µs CPU per row`,
    );
  };
  await phase('warm-up', `w-${runId}`);
  await phase('new', `n-${runId}`);
  await phase('repeat', `n-${runId}`);
  // The group commit's statement for rows it expects to be repeats (writeRepeats).
  await phase('repeat*', `n-${runId}`, (b) => writeRepeats(conn, b));
} finally {
  await deps.close();
  await db.drop();
}
