// The feedback tools and the auto-delete job on the embedded database (PGlite): the same migration
// (trigram indexes skipped when pg_trgm is absent) and the same SQL as PostgreSQL (row lock,
// ON CONFLICT on a partial unique index, DELETE ... RETURNING feeding the audit INSERT).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTENANCE_TASKS } from '../../../src/app/maintenance-tasks.js';
import { operator, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';
import { call, mcp, newAgent, toolText, type AgentUser } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: 'embedded' });
});
afterAll(async () => {
  await h?.close();
});

async function result(a: AgentUser, name: string, args: Record<string, unknown>) {
  const r = await mcp(h, call(name, args), { token: a.token });
  expect(r.body.result, r.text).toBeDefined();
  return { isError: r.body.result.isError as boolean, value: toolText(r.body) };
}

describe('feedback on the embedded database', () => {
  it('create, triage, comment once, list, get, hide and auto-delete', async () => {
    const mk = async (role = 'member') => newAgent(h, undefined, await operator(h, 'users.create', { email: uniqueEmail(role), name: 'E', role }));
    const [author, member, outsider, admin] = [await mk(), await mk(), await mk(), await mk('admin')];
    const slug = `e${randomBytes(3).toString('hex')}`;
    await operator(h, 'projects.create', { slug, name: 'Embedded', owner: author.email, members: [member.email], leads: [], tech_leads: [] });

    const f = (await result(author, 'create_feedback', { title: 't', body: 'b', project_slug: slug, is_anonymous: true, auto_delete_after: 'P1D' })).value;
    expect(f).toMatchObject({ triage: false, project_slug: slug, is_anonymous: true });
    const pool = (await result(author, 'create_feedback', { title: 'pool', body: 'b' })).value;
    expect(pool.triage).toBe(true);

    const c1 = (await result(member, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'hi', client_message_id: 'k' })).value;
    const c2 = (await result(member, 'add_feedback_comment', { feedbackId: f.feedback_id, body: 'hi', client_message_id: 'k' })).value;
    expect(c2).toEqual({ commentId: c1.commentId, deduplicated: true });

    const got = (await result(member, 'get_feedback', { feedback_id: f.feedback_id })).value;
    expect(got).toMatchObject({ author: null, comment_count: 1, comments: [{ comment_id: c1.commentId, author: { id: member.userId } }] });
    expect((await result(outsider, 'get_feedback', { feedback_id: f.feedback_id })).value).toEqual({ error: 'NOT_FOUND: feedback not found' });
    expect((await result(member, 'list_feedback', {})).value.items.map((i: any) => i.feedback_id)).toEqual([f.feedback_id]);
    expect((await result(admin, 'list_feedback', { triage: true })).value.items.map((i: any) => i.feedback_id)).toEqual([pool.feedback_id]);

    const task = MAINTENANCE_TASKS.find((t) => t.name === 'feedback.auto-delete')!;
    h.clock.advance(24 * 3_600_000 + 1);
    expect((await result(member, 'get_feedback', { feedback_id: f.feedback_id })).isError).toBe(true);
    expect(await task.run(h.svc.deps, h.clock.now())).toEqual({ processed: 1 });
    const conn = h.svc.deps.orm.em.fork().getConnection();
    expect(await conn.execute('select count(*)::int as n from feedback_comments')).toEqual([{ n: 0 }]);
    expect(await conn.execute(`select count(*)::int as n from audit_log where action = 'feedback.auto_deleted' and source = 'job'`)).toEqual([{ n: 1 }]);
    expect((await result(admin, 'get_feedback', { feedback_id: pool.feedback_id })).isError).toBe(false);
  });
});
