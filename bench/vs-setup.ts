// bench:vs's set-up of ONE tree (this one or the one compared): a fresh database migrated by that
// tree's own code, one user with VS_NOTIFICATIONS inbox rows and VS_TOKENS tokens made through
// that tree's operator operations: agent tokens (read:inbox) of that user, or with
// VS_KIND=personal a personal token (daily limit 200) for each of VS_TOKENS users of their own. Run as a child process (each tree's
// ORM metadata stays in a process of its own); writes {url, tokens} as JSON to VS_OUT.
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.env.VS_ROOT ?? '.');
const count = Number(process.env.VS_TOKENS ?? 1000);
const notifications = Number(process.env.VS_NOTIFICATIONS ?? 0);
const from = (rel: string) => import(path.join(root, rel));

const { loadConfig } = await from('src/config.ts');
const { createDeps } = await from('src/deps.ts');
const { runOperator } = await from('src/transports/cli/operator-socket.ts');
const { createDatabase } = await from('test/helpers/harness.ts');

const db = await createDatabase();
const deps = await createDeps(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }, 'bench'), { role: 'cli' });
const run = async (op: string, input: Record<string, unknown>) => {
  const r = await runOperator(deps, op, input);
  if (!r.ok) throw new Error(`${op}: ${JSON.stringify(r.error)}`);
  return r.output as Record<string, string>;
};
const runId = Date.now();
const email = `vs-bench-${runId}@example.test`;
const user = await run('users.create', { email, name: 'bench:vs' });
// agent: tokens of that one user; personal: a user of its own per token (one personal token each).
const mint =
  process.env.VS_KIND === 'personal'
    ? async (i: number) => {
        const own = `vs-bench-${runId}-${i}@example.test`;
        await run('users.create', { email: own, name: `bench:vs ${i}` });
        return (await run('tokens.create_personal', { email: own, label: 'bench', daily_limit: 200 })).token!;
      }
    : async () => (await run('agent_tokens.create', { email, scopes: ['read:inbox'] })).token!;
const tokens: string[] = [];
for (let i = 0; i < count; i += 16) tokens.push(...(await Promise.all(Array.from({ length: Math.min(16, count - i) }, (_, j) => mint(i + j)))));
if (notifications > 0)
  await deps.orm.em.getConnection().execute(
    `insert into notifications (id, user_id, type, title, created_at, updated_at)
     select gen_random_uuid(), ?, 'system', 'Notification ' || g, now() - (g || ' seconds')::interval, now() from generate_series(1, ?) g`,
    [user.userId!, notifications],
  );
await deps.close();
writeFileSync(process.env.VS_OUT!, JSON.stringify({ url: db.url, tokens }));
process.exit(0);
