// Claim batches are set-based (src/domain/tokens/claim.ts: one transaction, advisory locks taken in
// user id order): overlapping batches and single claims running at the same time must neither
// deadlock nor leave two active tokens for one employee, and every per-row rule and result code of
// SPEC "Token requests and results" holds in a full batch of 100.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, newUser, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';
import { adminTools, approvedEmployee, claim, sql } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const batch = (toolsToken: string, body: unknown) => http(h, 'POST', '/api/v1/tokens/claim/batch', { token: toolsToken, body });
const hash = (v: string) => createHash('sha256').update(v).digest('hex');

describe('claim batch, set-based', () => {
  it('overlapping batches (opposite orders) and single claims at once: all succeed, one active token per employee', async () => {
    const tools = await adminTools(h);
    const emps = await Promise.all(Array.from({ length: 12 }, () => approvedEmployee(h, tools)));
    const forward = emps.map((e) => ({ email: e.email }));
    const rs = await Promise.all([
      batch(tools.token, { claims: forward }),
      batch(tools.token, { claims: [...forward].reverse() }),
      batch(tools.token, { claims: forward.slice(3, 9) }),
      claim(h, tools.token, { email: emps[5]!.email }),
      claim(h, tools.token, { email: emps[0]!.email }),
    ]);
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    for (const r of rs.slice(0, 3)) expect(r.body.results.every((x: any) => x.ok === true)).toBe(true);

    // Every value handed out for one employee: exactly the latest and one prior are accepted.
    const values = new Map<string, string[]>();
    for (const r of rs.slice(0, 3)) for (const x of r.body.results) values.set(x.email, [...(values.get(x.email) ?? []), x.token.token]);
    values.get(emps[5]!.email)!.push(rs[3]!.body.token);
    values.get(emps[0]!.email)!.push(rs[4]!.body.token);
    for (const e of emps) {
      const rows = await sql(
        h,
        `select status, token_hash, prior_token_hash from inbound_tokens where owner_user_id = ? and claimed_by_tools_token_id is not null`,
        [e.userId],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].status).toBe('active');
      const mine = values.get(e.email)!.map(hash);
      expect(mine).toContain(rows[0].token_hash);
      if (mine.length > 1) expect(mine).toContain(rows[0].prior_token_hash);
    }
  });

  it('100 rows: per-row codes in request order, duplicates rotate, one audit row per success', async () => {
    const tools = await adminTools(h);
    const approved = await Promise.all(Array.from({ length: 40 }, () => approvedEmployee(h, tools)));
    const unapproved = await Promise.all(Array.from({ length: 10 }, () => newUser(h)));
    const inactive = await approvedEmployee(h, tools);
    await sql(h, `update users set status = 'offboarded' where id = ?`, [inactive.userId]);
    const claims: Array<{ email: string; daily_limit?: number }> = [];
    const expected: Array<[string, boolean, string | undefined]> = [];
    for (let i = 0; i < 100; i++) {
      const k = i % 10;
      let email: string;
      let ok = false;
      let reason: string | undefined;
      if (k < 6) {
        email = approved[(i * 7) % 40]!.email; // repeats: some employees appear two or three times
        ok = true;
      } else if (k < 8) {
        email = unapproved[i % 10]!.email;
        reason = 'no_approved_request';
      } else if (k === 8) {
        email = uniqueEmail('ghost');
        reason = 'user_not_found';
      } else {
        email = inactive.email;
        reason = 'user_inactive';
      }
      claims.push({ email: i % 3 === 0 ? email.toUpperCase() : email, daily_limit: 1 + (i % 5) });
      expected.push([email, ok, reason]);
    }
    const r = await batch(tools.token, { claims });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results.map((x: any) => [x.email, x.ok, x.reason])).toEqual(expected);

    // One active token per approved employee named; the last row naming an employee holds its
    // current value and daily_limit, the row before it the prior value.
    const lastRow = new Map<string, number>();
    const prevRow = new Map<string, number>();
    r.body.results.forEach((x: any, i: number) => {
      if (!x.ok) return;
      if (lastRow.has(x.email)) prevRow.set(x.email, lastRow.get(x.email)!);
      lastRow.set(x.email, i);
    });
    for (const [email, i] of lastRow) {
      const row = r.body.results[i];
      const [t] = await sql(h, `select token_hash, prior_token_hash, daily_limit, status from inbound_tokens where id = ?`, [row.token.tokenId]);
      expect(t).toMatchObject({ token_hash: hash(row.token.token), daily_limit: claims[i]!.daily_limit, status: 'active' });
      const prev = prevRow.get(email);
      if (prev !== undefined) {
        expect(t.prior_token_hash).toBe(hash(r.body.results[prev].token.token));
        expect(r.body.results[prev].token.tokenId).toBe(row.token.tokenId);
      }
      const active = await sql(h, `select id from inbound_tokens where owner_user_id = ? and status = 'active'`, [row.token.ownerUserId]);
      expect(active).toHaveLength(1);
    }
    const audits = await sql(h, `select action from audit_log where request_id = ? and action in ('inbound.token.created', 'inbound.token.rotated')`, [
      r.body.requestId,
    ]);
    expect(audits).toHaveLength(r.body.results.filter((x: any) => x.ok).length);
    expect(audits.filter((a) => a.action === 'inbound.token.created')).toHaveLength(lastRow.size);
  });
});
