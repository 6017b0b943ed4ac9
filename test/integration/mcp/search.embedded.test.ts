// The cross-type `search` tool on the embedded database (PGlite): the same SQL as on PostgreSQL.
// PGlite is started with the pg_trgm bundle, so the migration creates the same trigram indexes;
// results, visibility and scores must be the same.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperation } from '../../../src/app/run-operation.js';
import { createMeeting } from '../../../src/domain/search/create-meeting.js';
import { event, newUser, operator, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { newAgent, toolCalls } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: 'embedded' });
});
afterAll(async () => {
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.getConnection().execute(q, params) as Promise<any[]>;

const { ok } = toolCalls(() => h);

describe('search on the embedded database', () => {
  it('matches every type with the trigram indexes, within the caller visibility', async () => {
    const indexes = (await sql(`select indexname from pg_indexes where indexname like '%trgm%'`)).map((r: any) => r.indexname);
    expect(indexes).toEqual(
      expect.arrayContaining([
        'tasks_title_trgm_index',
        'tasks_description_trgm_index',
        'task_comments_body_trgm_index',
        'meetings_title_trgm_index',
        'feedback_title_trgm_index',
        'feedback_body_trgm_index',
        'feedback_comments_body_trgm_index',
      ]),
    );
    // As on PostgreSQL: no GIN pending list (Migration20261124100000TrigramFastupdate).
    const options = await sql(`select c.relname, coalesce(c.reloptions, '{}') as options from pg_class c where c.relname like '%trgm_index'`);
    for (const r of options) expect(r.options, r.relname).toContain('fastupdate=off');

    const [owner, member, outsider] = await Promise.all([newUser(h), newUser(h), newUser(h)]);
    const slug = `emb-${randomBytes(3).toString('hex')}`;
    await operator(h, 'projects.create', { slug, name: 'Embedded', owner: owner.email, members: [member.email] });
    const [o, m, x] = [
      await newAgent(h, undefined, owner),
      await newAgent(h, ['read:*', 'write:tasks', 'write:feedback'], member),
      await newAgent(h, undefined, outsider),
    ];
    const k = `Zq${randomBytes(3).toString('hex')}`;

    const task = await ok(o, 'create_task', { project_slug: slug, title: `Fix ${k} now`, description: 'details' });
    const comment = await ok(m, 'add_task_comment', { taskId: task.task_id, body: `more about ${k}` });
    const meeting = (
      await runOperation(h.svc.deps, createMeeting, {
        surface: 'cli',
        requestId: 'req_test',
        input: { project_slug: slug, title: `${k} retro`, starts_at: '2026-12-01T09:00:00Z', created_by_email: owner.email },
        log: h.svc.deps.log,
        system: true,
      })
    ).output;
    const fb = await ok(m, 'create_feedback', { title: 'Wish', body: `a ${k} wish`, project_slug: slug, is_anonymous: true });
    const t = await operator<{ token: string }>(h, 'tokens.create_personal', { email: member.email, label: 'emb', daily_limit: 200 });
    const pub = await publish(h, t.token, event(h, { title: `deploy ${k} done` }));
    expect(pub.status, pub.text).toBe(202);

    const r = await ok(m, 'search', { query: k.toLowerCase() });
    expect(r.hits.map((hh: any) => hh.type).sort()).toEqual(['comment', 'feedback', 'meeting', 'notification', 'task']);
    expect(r.hits.find((hh: any) => hh.type === 'task')).toMatchObject({ id: task.task_id, matched_field: 'title', snippet: `Fix ${k} now`, url: task.url });
    expect(r.hits.find((hh: any) => hh.type === 'comment')).toMatchObject({ id: comment.commentId, matched_field: 'body' });
    expect(r.hits.find((hh: any) => hh.type === 'meeting')).toMatchObject({ id: meeting.meeting_id, url: meeting.url });
    expect(r.hits.find((hh: any) => hh.type === 'feedback')).toMatchObject({ id: fb.feedback_id, matched_field: 'body' });
    expect(r.hits.map((hh: any) => hh.score)).toEqual([...r.hits.map((hh: any) => hh.score)].sort((a: number, b: number) => b - a));

    // The owner sees the project's items but not the member's notification; an outsider nothing.
    expect((await ok(o, 'search', { query: k })).hits.map((hh: any) => hh.type).sort()).toEqual(['comment', 'feedback', 'meeting', 'task']);
    expect((await ok(x, 'search', { query: k })).count).toBe(0);
    // The anonymous feedback is not matched by its author's email for anyone else.
    expect((await ok(o, 'search', { query: k, types: ['feedback'], filters: { author_email: member.email } })).count).toBe(0);
    expect((await ok(m, 'search', { query: k, types: ['feedback'], filters: { author_email: member.email } })).count).toBe(1);
  });
});
