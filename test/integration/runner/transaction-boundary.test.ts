// The runner owns the transaction boundary (app/run-operation.ts, domain/context.ts):
// a writing operation (`writes: true`) runs in ONE transaction that commits only when the handler
// returns, its unit of work flushed once by the runner; afterCommit effects run after that commit and
// never after a rollback; ctx.call runs another operation through the runner (its scopes and its
// input validation apply) inside the caller's transaction; an operation that does not write gets
// no transaction and no fork of the runner's making; a writing transaction that lost a real
// deadlock runs again. Real PostgreSQL and Redis throughout (the service's own deps, no listener):
// rows are read back on a connection of its own.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OPERATOR_OPERATIONS } from '../../../src/app/operations.js';
import { runOperation, type Invocation } from '../../../src/app/run-operation.js';
import { loadConfig } from '../../../src/config.js';
import { createDeps, type Deps } from '../../../src/deps.js';
import { recordAudit } from '../../../src/domain/audit/audit.js';
import { defineOperation, type Logger, type OpContext, type Operation } from '../../../src/domain/context.js';
import { existingEm } from '../../../src/app/lazy-em-context.js';
import { DomainError } from '../../../src/domain/errors.js';
import { run } from '../../../src/domain/sql.js';
import { createDatabase, REDIS_URL, uniqueEmail } from '../../helpers/harness.js';

let deps: Deps;
let database: { url: string; drop(): Promise<void> };
let db: pg.Client;
const errors: Array<{ obj: object; msg?: string }> = [];
const log: Logger = {
  info() {},
  warn() {},
  debug() {},
  error(obj, msg) {
    errors.push({ obj, msg });
  },
  child() {
    return log;
  },
};

beforeAll(async () => {
  database = await createDatabase();
  deps = await createDeps(loadConfig({ DATABASE_URL: database.url, REDIS_URL, LOG_LEVEL: 'silent' }, '0.0.0'));
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  await db.query('create table runner_probe (id text primary key, n int not null default 0)');
});
afterAll(async () => {
  await db?.end();
  await deps?.close();
  await database?.drop();
});

/** An agent token of a fresh user with the one scope read:inbox, made by the operator operations (what the CLI runs). */
async function agentToken(): Promise<string> {
  const email = uniqueEmail();
  await call(OPERATOR_OPERATIONS['users.create']!, { email, name: 'Runner Test', role: 'member' });
  return ((await call(OPERATOR_OPERATIONS['agent_tokens.create']!, { email, scopes: ['read:inbox'] })).output as { token: string }).token;
}

let seq = 0;
const id = (tag: string) => `${tag}-${seq++}`;
const rowExists = async (key: string) => (await db.query('select 1 from runner_probe where id = $1', [key])).rowCount === 1;
const auditRows = async (requestId: string) =>
  Number((await db.query('select count(*)::int as n from audit_log where request_id = $1', [requestId])).rows[0].n);

const call = <I, O>(op: Operation<I, O, any>, input: unknown, over: Partial<Invocation> = {}) =>
  runOperation(deps, op, { surface: 'cli', requestId: id('req'), input, log, system: true, ...over });

const insertProbe = (ctx: OpContext<any>, key: string) => run(ctx.em, 'insert into runner_probe (id) values (?)', [key]);

function op<I>(name: string, input: z.ZodType<I>, writes: boolean, handler: (input: I, ctx: OpContext<any>) => Promise<unknown>): Operation<I, unknown, any> {
  return defineOperation<I, unknown, any>({ name, auth: { kind: 'system' }, budget: null, idempotent: false, input, writes, handler });
}
const Key = z.strictObject({ key: z.string() });

describe('a writing operation runs in one transaction', () => {
  it('commits its raw statements and its unit of work (flushed by the runner) when the handler returns', async () => {
    const key = id('ok');
    const requestId = id('req');
    const write = op('test.write', Key, true, async ({ key }, ctx) => {
      await insertProbe(ctx, key);
      recordAudit(ctx.em, ctx, { action: 'test.written', targetType: 'probe', targetId: key });
      return { key };
    });
    await expect(call(write, { key }, { requestId })).resolves.toMatchObject({ output: { key } });
    expect(await rowExists(key)).toBe(true);
    expect(await auditRows(requestId)).toBe(1);
  });

  it('leaves no row when the handler throws after writing', async () => {
    const key = id('rollback');
    const requestId = id('req');
    const write = op('test.write_then_fail', Key, true, async ({ key }, ctx) => {
      await insertProbe(ctx, key);
      recordAudit(ctx.em, ctx, { action: 'test.written', targetType: 'probe', targetId: key });
      throw new DomainError('conflict', 'refused after the write', { code: 'refused' });
    });
    await expect(call(write, { key }, { requestId })).rejects.toMatchObject({ kind: 'conflict', code: 'refused' });
    expect(await rowExists(key)).toBe(false);
    expect(await auditRows(requestId)).toBe(0);
  });

  it('all statements of the handler see one transaction; an operation that does not write gets none and no fork', async () => {
    // now() is the transaction's start: equal across statements only inside one transaction.
    const times = async (ctx: OpContext<any>) => {
      const a = await run<{ t: string }>(ctx.em, 'select now()::text as t');
      await new Promise((r) => setTimeout(r, 20));
      const b = await run<{ t: string }>(ctx.em, 'select now()::text as t');
      return a[0]!.t === b[0]!.t;
    };
    const writing = op('test.tx_probe', z.strictObject({}), true, async (_i, ctx) => times(ctx));
    const reading = op('test.read_probe', z.strictObject({}), false, async (_i, ctx) => times(ctx));
    expect((await call(writing, {})).output).toBe(true);
    expect((await call(reading, {})).output).toBe(false);

    let seen: OpContext<any> | undefined;
    const untouched = op('test.no_em', z.strictObject({}), false, async (_i, ctx) => {
      seen = ctx;
      return existingEm(ctx) === undefined;
    });
    expect((await call(untouched, {})).output).toBe(true);
    expect(existingEm(seen!)).toBeUndefined();
  });
});

describe('afterCommit', () => {
  it('runs after the commit (the write is visible to another connection), in order, and a failing effect is logged, not thrown', async () => {
    const key = id('effect');
    const seen: string[] = [];
    const write = op('test.effects', Key, true, async ({ key }, ctx) => {
      ctx.afterCommit(async () => {
        seen.push(`first:${await rowExists(key)}`);
      });
      ctx.afterCommit(() => {
        throw new Error('receiver down');
      });
      ctx.afterCommit(() => seen.push('third'));
      await insertProbe(ctx, key);
      seen.push('handler done');
      return 'ok';
    });
    const before = errors.length;
    await expect(call(write, { key })).resolves.toMatchObject({ output: 'ok' });
    expect(seen).toEqual(['handler done', 'first:true', 'third']);
    expect(errors.length).toBe(before + 1);
    expect(errors.at(-1)!.msg).toMatch(/after-commit effect failed/);
  });

  it('never runs when the transaction rolls back, or when an operation that does not write fails', async () => {
    let ran = 0;
    const write = op('test.effects_rollback', Key, true, async ({ key }, ctx) => {
      ctx.afterCommit(() => ran++);
      await insertProbe(ctx, key);
      throw new DomainError('conflict', 'no', { code: 'refused' });
    });
    await expect(call(write, { key: id('effect-rb') })).rejects.toMatchObject({ code: 'refused' });
    const read = op('test.effects_read_fail', z.strictObject({}), false, async (_i, ctx) => {
      ctx.afterCommit(() => ran++);
      throw new DomainError('not_found', 'no', { code: 'not_found' });
    });
    await expect(call(read, {})).rejects.toMatchObject({ code: 'not_found' });
    expect(ran).toBe(0);

    const readOk = op('test.effects_read_ok', z.strictObject({}), false, async (_i, ctx) => {
      ctx.afterCommit(() => ran++);
      return 'ok';
    });
    await call(readOk, {});
    expect(ran).toBe(1);
  });
});

describe('ctx.call', () => {
  const inner = op('test.inner', z.strictObject({ key: z.string().min(3) }), true, async ({ key }, ctx) => {
    await insertProbe(ctx, key);
    ctx.afterCommit(() => innerEffects.push(key));
    return { key };
  });
  const innerEffects: string[] = [];

  it("runs the inner operation in the caller's transaction: the caller's failure undoes the inner write, its effects wait for the caller's commit", async () => {
    const ok = id('nested');
    const outer = op('test.outer', Key, true, async ({ key }, ctx) => {
      const r = await ctx.call(inner, { key });
      expect(innerEffects).not.toContain(key);
      return r;
    });
    await expect(call(outer, { key: ok })).resolves.toMatchObject({ output: { key: ok } });
    expect(await rowExists(ok)).toBe(true);
    expect(innerEffects).toContain(ok);

    const undone = id('nested-rb');
    const failing = op('test.outer_fails', Key, true, async ({ key }, ctx) => {
      await ctx.call(inner, { key });
      throw new DomainError('conflict', 'outer refused', { code: 'refused' });
    });
    await expect(call(failing, { key: undone })).rejects.toMatchObject({ code: 'refused' });
    expect(await rowExists(undone)).toBe(false);
    expect(innerEffects).not.toContain(undone);
  });

  it("validates the inner input with the inner operation's schema (or the caller's own refusal)", async () => {
    const outer = op('test.outer_bad_input', z.strictObject({}), true, async (_i, ctx) => ctx.call(inner, { key: 'x', extra: 1 }));
    const err = await call(outer, {}).then(
      () => undefined,
      (e: unknown) => e as DomainError,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect(err!.kind).toBe('validation');
    expect(err!.issues.map((i) => i.field).sort()).toEqual(['extra', 'key']);

    const mapped = op('test.outer_maps', z.strictObject({}), false, async (_i, ctx) =>
      ctx.call(
        inner,
        { key: 'x' },
        { onInvalid: (issues) => new DomainError('validation', 'mine', { code: 'my_code', issues: issues.map((i) => ({ ...i, field: `inner.${i.field}` })) }) },
      ),
    );
    await expect(call(mapped, {})).rejects.toMatchObject({ code: 'my_code', issues: [expect.objectContaining({ field: 'inner.key' })] });
  });

  it("refuses an inner operation whose scope the caller's agent token lacks, and one whose auth does not take the principal", async () => {
    const token = await agentToken();
    const scoped = defineOperation<Record<string, never>, string, any>({
      name: 'test.scoped',
      auth: { kind: 'agent' },
      budget: 'agent',
      requiredScopes: ['admin:test-only-scope'],
      idempotent: false,
      input: z.strictObject({}),
      handler: async () => 'reached',
    });
    const outer = defineOperation<Record<string, never>, string, any>({
      name: 'test.outer_agent',
      auth: { kind: 'agent' },
      budget: 'agent',
      idempotent: false,
      input: z.strictObject({}),
      handler: async (_i, ctx) => ctx.call(scoped, {}),
    });
    const agentCall = (o: Operation<any, any, any>) =>
      runOperation(deps, o, { surface: 'mcp', requestId: id('req'), input: {}, log, authorization: `Bearer ${token}` });
    await expect(agentCall(outer)).rejects.toMatchObject({ kind: 'forbidden', code: 'missing_scope' });

    const operatorOnly = op('test.operator_only', z.strictObject({}), false, async () => 'reached');
    const outer2 = defineOperation<Record<string, never>, unknown, any>({
      ...outer,
      name: 'test.outer_agent2',
      handler: async (_i, ctx) => ctx.call(operatorOnly, {}),
    });
    await expect(agentCall(outer2)).rejects.toMatchObject({ kind: 'forbidden' });
  });
});

describe('conflicts', () => {
  it('a writing transaction that lost a real deadlock runs again from the start, and both calls succeed', async () => {
    const a = id('lock-a');
    const b = id('lock-b');
    await db.query('insert into runner_probe (id) values ($1), ($2)', [a, b]);
    let tries = 0;
    let holding = 0;
    const bothHold = new Promise<void>((resolve) => {
      const wait = () => (holding >= 2 ? resolve() : setTimeout(wait, 5));
      wait();
    });
    const lockBoth = op('test.lock_both', z.strictObject({ first: z.string(), second: z.string() }), true, async ({ first, second }, ctx) => {
      tries++;
      await run(ctx.em, 'update runner_probe set n = n + 1 where id = ?', [first]);
      if (tries <= 2) {
        holding++;
        await bothHold; // each first try holds one row and asks for the other's: a lock cycle
      }
      await run(ctx.em, 'update runner_probe set n = n + 1 where id = ?', [second]);
      return 'done';
    });
    const results = await Promise.all([call(lockBoth, { first: a, second: b }), call(lockBoth, { first: b, second: a })]);
    expect(results.map((r) => r.output)).toEqual(['done', 'done']);
    expect(tries).toBe(3);
    const rows = await db.query('select id, n from runner_probe where id = any($1) order by id', [[a, b]]);
    expect(rows.rows.map((r) => r.n)).toEqual([2, 2]);
  });
});
