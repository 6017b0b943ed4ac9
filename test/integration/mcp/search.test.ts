// The cross-type `search` tool through POST /mcp (SPEC C `search`, scope `read:*`; What the
// service does 8: project isolation on the server) and the minimal meetings model.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperation } from '../../../src/app/run-operation.js';
import type { Operation } from '../../../src/domain/context.js';
import { createMeeting } from '../../../src/domain/search/create-meeting.js';
import { searchStatement } from '../../../src/domain/search/search.repository.js';
import { parseCommand } from '../../../src/transports/cli/commands.js';
import { event, operator, publish, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';
import { expectInvalidParams, expectMissingScope } from './admin-fixtures.js';
import { newAgent, toolCalls, type AgentUser } from './rpc.js';

let h: Harness;
let base: string;
beforeAll(async () => {
  h = await startHarness();
  base = h.svc.deps.config.publicBaseUrl;
});
afterAll(async () => {
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

/** An operator operation run the way the CLI runs it. */
const system = async (op: Operation<any, any, any>, input: Record<string, unknown>) =>
  (await runOperation(h.svc.deps, op, { surface: 'cli', requestId: 'req_test', input, log: h.svc.deps.log, system: true })).output;

const { agent, ok } = toolCalls(() => h);

const search = (a: AgentUser, query: string, more: Record<string, unknown> = {}) => ok(a, 'search', { query, ...more });
const typesOf = (r: any) => r.hits.map((x: any) => x.type).sort();
const word = () => `zq${randomBytes(4).toString('hex')}`;

/** A notification for `a` (through a real inbound event on their personal token). */
async function notify(a: AgentUser, title: string, summary?: string): Promise<string> {
  const t = await operator<{ token: string }>(h, 'tokens.create_personal', { email: a.email, label: 'search', daily_limit: 200 });
  const r = await publish(h, t.token, event(h, { title, ...(summary ? { summary } : {}) }));
  expect(r.status, r.text).toBe(202);
  return (await sql(`select id from notifications where delivery_id = ?`, [r.body.deliveryId]))[0].id;
}

async function world() {
  const [owner, member, outsider, admin, coordinator] = [await agent(), await agent(), await agent(), await agent('admin'), await agent('coordinator')];
  const slug = `s${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', { slug, name: `Search ${slug}`, owner: owner.email, members: [member.email] });
  const otherSlug = `o${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', { slug: otherSlug, name: `Other ${otherSlug}`, owner: outsider.email });
  return { slug, otherSlug, owner, member, outsider, admin, coordinator };
}

describe('search across types', () => {
  it('finds tasks, comments, meetings, own notifications and feedback with snippet, matched_field, url, score, createdAt', async () => {
    const w = await world();
    const k = word();
    const longBody = `${'Some leading words here. '.repeat(12)}The ${k.toUpperCase()} rollout is blocked. ${'Trailing text. '.repeat(12)}`;
    const task = await ok(w.owner, 'create_task', { project_slug: w.slug, title: `Plan ${k} migration` });
    const task2 = await ok(w.owner, 'create_task', { project_slug: w.slug, title: 'Second task', description: longBody });
    const comment = await ok(w.member, 'add_task_comment', { taskId: task2.task_id, body: `I looked at ${k} today` });
    const meeting = await system(createMeeting, {
      project_slug: w.slug,
      title: `${k} sync`,
      starts_at: '2026-11-23T10:00:00Z',
      ends_at: '2026-11-23T10:30:00+00:00',
      created_by_email: w.owner.email,
    });
    expect(meeting).toEqual({
      meeting_id: expect.any(String),
      project_slug: w.slug,
      title: `${k} sync`,
      starts_at: '2026-11-23T10:00:00.000Z',
      ends_at: '2026-11-23T10:30:00.000Z',
      url: `${base}/meetings/${meeting.meeting_id}`,
    });
    const notif = await notify(w.member, 'Build failed', `step ${k} failed`);
    await notify(w.owner, `owner only ${k}`);
    const fb = await ok(w.member, 'create_feedback', { title: 'Idea', body: `Please add ${k} support`, project_slug: w.slug });
    const fbComment = await ok(w.owner, 'add_feedback_comment', { feedbackId: fb.feedback_id, body: `agreed on ${k}` });

    const r = await search(w.member, k);
    expect(r.query).toBe(k);
    expect(r.count).toBe(7);
    expect(typesOf(r)).toEqual(['comment', 'comment', 'feedback', 'meeting', 'notification', 'task', 'task']);
    const byId = new Map(r.hits.map((x: any) => [x.id, x]));
    expect(byId.get(task.task_id)).toEqual({
      type: 'task',
      id: task.task_id,
      title: `Plan ${k} migration`,
      snippet: `Plan ${k} migration`,
      matched_field: 'title',
      url: task.url,
      score: expect.any(Number),
      createdAt: expect.any(String),
    });
    const inBody: any = byId.get(task2.task_id);
    expect(inBody).toMatchObject({ type: 'task', matched_field: 'description', url: task2.url });
    expect(inBody.snippet).toContain(`The ${k.toUpperCase()} rollout`);
    expect(inBody.snippet.startsWith('…') && inBody.snippet.endsWith('…')).toBe(true);
    expect(byId.get(comment.commentId)).toMatchObject({
      type: 'comment',
      matched_field: 'body',
      title: `Comment on ${task2.code}: Second task`,
      url: `${task2.url}#comment-${comment.commentId}`,
      snippet: `I looked at ${k} today`,
    });
    expect(byId.get(meeting.meeting_id)).toMatchObject({
      type: 'meeting',
      matched_field: 'title',
      url: meeting.url,
      title: `${k} sync`,
      snippet: `${k} sync (2026-11-23T10:00:00.000Z – 2026-11-23T10:30:00.000Z)`,
    });
    expect(byId.get(notif)).toMatchObject({
      type: 'notification',
      matched_field: 'summary',
      title: 'Build failed',
      url: `${base}/inbox/${notif}`,
      snippet: `step ${k} failed`,
    });
    expect(byId.get(fb.feedback_id)).toMatchObject({ type: 'feedback', matched_field: 'body', title: 'Idea', url: fb.url });
    expect(byId.get(fbComment.commentId)).toMatchObject({
      type: 'comment',
      title: 'Comment on feedback: Idea',
      url: `${fb.url}#comment-${fbComment.commentId}`,
    });
    for (const x of r.hits) {
      expect(x.url.startsWith(`${base}/`)).toBe(true);
      expect(Number.isNaN(Date.parse(x.createdAt))).toBe(false);
      expect(x.score).toBeGreaterThanOrEqual(0.25);
      expect(x.score).toBeLessThan(1);
    }
    // Score order: title hits (task, meeting) before body hits; then newest first.
    const scores = r.hits.map((x: any) => x.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(
      r.hits
        .slice(0, 2)
        .map((x: any) => x.type)
        .sort(),
    ).toEqual(['meeting', 'task']);

    // types narrows; duplicates are harmless; limit cuts after ordering.
    expect(typesOf(await search(w.member, k, { types: ['comment', 'comment'] }))).toEqual(['comment', 'comment']);
    expect(typesOf(await search(w.member, k, { types: ['notification', 'meeting'] }))).toEqual(['meeting', 'notification']);
    expect((await search(w.member, k, { limit: 2 })).hits.map((x: any) => x.id)).toEqual(r.hits.slice(0, 2).map((x: any) => x.id));
    // Case-insensitive, inside words; LIKE wildcards are literal.
    expect((await search(w.member, k.slice(1).toUpperCase())).count).toBe(7);
    expect((await search(w.member, `${k.slice(0, 3)}%${k.slice(4)}`)).count).toBe(0);
    expect((await search(w.member, `${k.slice(0, 3)}_${k.slice(4)}`)).count).toBe(0);
    const pathTask = await ok(w.owner, 'create_task', { project_slug: w.slug, title: `Copy to C:\\${k}\\tmp (100% done?)` });
    expect((await search(w.member, `c:\\${k}\\TMP`)).hits.map((x: any) => x.id)).toEqual([pathTask.task_id]);
    expect((await search(w.member, '(100% done?)')).hits.map((x: any) => x.id)).toEqual([pathTask.task_id]);
    expect((await search(w.member, '%')).hits.map((x: any) => x.id)).toEqual([pathTask.task_id]);
  });

  it('filters: project_slug, author_email, since, status', async () => {
    const w = await world();
    const k = word();
    const t1 = await ok(w.owner, 'create_task', { project_slug: w.slug, title: `${k} one` });
    h.clock.advance(60_000);
    const cut = h.clock.now().toISOString();
    h.clock.advance(1_000);
    const t2 = await ok(w.member, 'create_task', { project_slug: w.slug, title: `${k} two`, assignee_email: w.member.email });
    await ok(w.member, 'update_task_status', { code: t2.code, status: 'in_progress' });
    const t3 = await ok(w.outsider, 'create_task', { project_slug: w.otherSlug, title: `${k} elsewhere` });
    const n1 = await notify(w.member, `${k} alert`);
    await system(createMeeting, { project_slug: w.slug, title: `${k} review`, starts_at: '2026-12-01T09:00:00Z', created_by_email: w.owner.email });

    const ids = (r: any) => r.hits.map((x: any) => x.id).sort();
    // Notifications the task tools sent along the way also match; count only the published event's.
    const own = (await search(w.member, k, { types: ['notification'] })).hits.map((x: any) => x.id);
    expect(own).toContain(n1);
    // The coordinator sees every project: the project filter narrows to one.
    expect(typesOf(await search(w.coordinator, k, { types: ['task', 'meeting'] }))).toEqual(['meeting', 'task', 'task', 'task']);
    expect(ids(await search(w.coordinator, k, { filters: { project_slug: w.otherSlug.toUpperCase() } }))).toEqual([t3.task_id]);
    // project_slug leaves notifications out (they belong to no project).
    expect(typesOf(await search(w.member, k, { filters: { project_slug: w.slug } }))).toEqual(['meeting', 'task', 'task']);
    expect(typesOf(await search(w.member, k, { types: ['task', 'meeting'], filters: { author_email: w.owner.email.toUpperCase() } }))).toEqual([
      'meeting',
      'task',
    ]);
    expect(ids(await search(w.member, k, { types: ['task'], filters: { author_email: w.owner.email } }))).toEqual([t1.task_id]);
    expect(ids(await search(w.member, k, { types: ['task'], filters: { since: cut } }))).toEqual([t2.task_id]);
    expect((await search(w.member, k, { filters: { since: new Date(h.clock.now().getTime() + 60_000).toISOString() } })).count).toBe(0);
    // status: the task's; read state for notifications; meetings have none.
    expect(ids(await search(w.member, k, { filters: { status: 'in_progress' } }))).toEqual([t2.task_id]);
    expect(ids(await search(w.member, k, { types: ['task', 'meeting'], filters: { status: 'todo' } }))).toEqual([t1.task_id]);
    expect(ids(await search(w.member, k, { types: ['notification'], filters: { status: 'unread' } }))).toEqual([...own].sort());
    await ok(w.member, 'mark_notification_read', { notificationId: n1 });
    expect(ids(await search(w.member, k, { types: ['notification'], filters: { status: 'read' } }))).toEqual([n1]);
    expect(ids(await search(w.member, k, { filters: { status: 'unread' } }))).not.toContain(n1);
    expect((await search(w.member, k, { filters: { status: 'no_such_status' } })).count).toBe(0);
  });
});

describe('visibility is enforced in SQL', () => {
  it('project isolation, own drafts, own notifications, archived projects', async () => {
    const w = await world();
    const k = word();
    const pub = await ok(w.owner, 'create_task', { project_slug: w.slug, title: `${k} published` });
    const draft = await ok(w.member, 'create_task', { project_slug: w.slug, title: `${k} draft`, as_draft: true });
    const c = await ok(w.owner, 'add_task_comment', { taskId: pub.task_id, body: `${k} note` });
    const m = await system(createMeeting, { project_slug: w.slug, title: `${k} standup`, starts_at: '2026-12-01T09:00:00Z', created_by_email: w.owner.email });
    const nOwner = await notify(w.owner, `${k} for the owner`);

    const ids = async (a: AgentUser) => (await search(a, k)).hits.map((x: any) => x.id).sort();
    // The outsider (member of another project) sees nothing; the member sees the project and their draft, not the owner's notification.
    expect(await ids(w.outsider)).toEqual([]);
    expect(await ids(w.member)).toEqual([pub.task_id, draft.task_id, c.commentId, m.meeting_id].sort());
    expect(await ids(w.owner)).toEqual([pub.task_id, c.commentId, m.meeting_id, nOwner].sort());
    // Org-wide roles see every project, but never someone else's notifications or drafts.
    expect(await ids(w.admin)).toEqual([pub.task_id, c.commentId, m.meeting_id].sort());
    expect(await ids(w.coordinator)).toEqual([pub.task_id, c.commentId, m.meeting_id].sort());
    // An archived project's items disappear (the draft stays its creator's).
    await sql(`update projects set archived_at = now() where slug = ?`, [w.slug]);
    expect(await ids(w.member)).toEqual([draft.task_id]);
    expect(await ids(w.admin)).toEqual([]);
    await sql(`update projects set archived_at = null where slug = ?`, [w.slug]);
  });

  it('feedback: the author, project members and org-wide roles; anonymity is never revealed by author_email; expired feedback is gone', async () => {
    const w = await world();
    const k = word();
    const mine = await ok(w.member, 'create_feedback', { title: `${k} named`, body: 'text', project_slug: w.slug });
    const anon = await ok(w.member, 'create_feedback', { title: `${k} anonymous`, body: 'text', project_slug: w.slug, is_anonymous: true });
    const triage = await ok(w.outsider, 'create_feedback', { title: `${k} triage`, body: 'text' });
    const ownComment = await ok(w.member, 'add_feedback_comment', { feedbackId: anon.feedback_id, body: `${k} more from the anonymous author` });

    const ids = async (a: AgentUser, more: Record<string, unknown> = {}) =>
      (await search(a, k, { types: ['feedback', 'comment'], ...more })).hits.map((x: any) => x.id).sort();
    expect(await ids(w.owner)).toEqual([mine.feedback_id, anon.feedback_id, ownComment.commentId].sort());
    expect(await ids(w.outsider)).toEqual([triage.feedback_id]);
    expect(await ids(w.admin)).toEqual([mine.feedback_id, anon.feedback_id, triage.feedback_id, ownComment.commentId].sort());
    // author_email: the named feedback only, for anyone but the anonymous author themselves.
    for (const viewer of [w.owner, w.admin]) {
      expect(await ids(viewer, { filters: { author_email: w.member.email } })).toEqual([mine.feedback_id]);
    }
    expect(await ids(w.member, { filters: { author_email: w.member.email } })).toEqual([mine.feedback_id, anon.feedback_id, ownComment.commentId].sort());
    // A hit never names an author.
    const hit = (await search(w.admin, `${k} anonymous`)).hits[0];
    expect(Object.keys(hit).sort()).toEqual(['createdAt', 'id', 'matched_field', 'score', 'snippet', 'title', 'type', 'url']);
    expect(JSON.stringify(hit)).not.toContain(w.member.email);

    await sql(`update feedback set delete_after = ? where id = ?`, [new Date(h.clock.now().getTime() + 3_600_000), mine.feedback_id]);
    expect(await ids(w.owner)).toContain(mine.feedback_id);
    h.clock.advance(3_600_000);
    expect(await ids(w.owner)).not.toContain(mine.feedback_id);
  });
});

describe('scope and input', () => {
  it('needs read:* (or *); read:tasks alone is not enough', async () => {
    const w = await world();
    await expectMissingScope(h, (await newAgent(h, ['read:tasks', 'read:inbox', 'read:feedback'], w.member)).token, 'search', { query: 'x' }, 'read:*');
    const reader = await newAgent(h, ['read:*'], w.member);
    expect((await ok(reader, 'search', { query: word() })).count).toBe(0);
  });

  it('rejects bad input with -32602 naming the field; nothing is searched', async () => {
    const w = await world();
    const t = w.member.token;
    await expectInvalidParams(h, t, 'search', {}, 'query');
    await expectInvalidParams(h, t, 'search', { query: '  ' }, 'query');
    await expectInvalidParams(h, t, 'search', { query: 'x'.repeat(201) }, 'query');
    await expectInvalidParams(h, t, 'search', { query: 'a\nb' }, 'query');
    await expectInvalidParams(h, t, 'search', { query: 'x', types: [] }, 'types');
    await expectInvalidParams(h, t, 'search', { query: 'x', types: ['doc'] }, 'types[0]');
    await expectInvalidParams(h, t, 'search', { query: 'x', limit: 0 }, 'limit');
    await expectInvalidParams(h, t, 'search', { query: 'x', limit: 101 }, 'limit');
    await expectInvalidParams(h, t, 'search', { query: 'x', filters: { since: 'yesterday' } }, 'filters.since');
    await expectInvalidParams(h, t, 'search', { query: 'x', filters: { author_email: 'nope' } }, 'filters.author_email');
    await expectInvalidParams(h, t, 'search', { query: 'x', filters: { status: 'In Progress' } }, 'filters.status');
    await expectInvalidParams(h, t, 'search', { query: 'x', filters: { project: 'p' } }, 'filters.project');
    await expectInvalidParams(h, t, 'search', { query: 'x', unknown: 1 }, 'unknown');
    // A quote or backslash in the query is data, not SQL.
    expect((await search(w.member, `it's \\ "quoted"`)).count).toBe(0);
    expect((await search(w.member, 'why? ?? $1 :name')).count).toBe(0);
  });

  it('meetings.create validates and checks the project and creator', async () => {
    const w = await world();
    const fail = (input: Record<string, unknown>) =>
      system(createMeeting, { project_slug: w.slug, title: 'T', starts_at: '2026-12-01T09:00:00Z', created_by_email: w.owner.email, ...input }).then(
        () => null,
        (e: any) => e,
      );
    expect((await fail({ ends_at: '2026-12-01T08:00:00Z' })).issues).toEqual([expect.objectContaining({ field: 'ends_at' })]);
    expect((await fail({ starts_at: '2026-12-01' })).issues).toEqual([expect.objectContaining({ field: 'starts_at' })]);
    expect((await fail({ project_slug: 'no-such-project' })).kind).toBe('not_found');
    expect((await fail({ created_by_email: uniqueEmail('ghost') })).code).toBe('user_not_found');
    expect(Number((await sql(`select count(*) as n from meetings m join projects p on p.id = m.project_id where p.slug = ?`, [w.slug]))[0].n)).toBe(0);
  });

  it('CLI: meeting create --project S --title T --starts-at ISO [--ends-at ISO] --by E runs meetings.create', async () => {
    const w = await world();
    const cmd = parseCommand(['meeting', 'create', '--project', w.slug, '--title', 'Planning', '--starts-at', '2026-12-02T09:00:00Z', '--by', w.owner.email]);
    expect(cmd).toEqual({
      op: 'meetings.create',
      input: { project_slug: w.slug, title: 'Planning', starts_at: '2026-12-02T09:00:00Z', created_by_email: w.owner.email },
    });
    const out = await operator<{ meeting_id: string; url: string }>(h, cmd.op, (cmd as { input: Record<string, unknown> }).input);
    expect(out.url).toBe(`${base}/meetings/${out.meeting_id}`);
  });
});

describe('PostgreSQL plan', () => {
  it('trigram indexes keep no GIN pending list: rows go into the index when written (fastupdate off)', async () => {
    const rows = await sql(
      `select c.relname, coalesce(c.reloptions, '{}') as options from pg_index i join pg_class c on c.oid = i.indexrelid
        where exists (select 1 from pg_opclass oc where oc.oid = any (i.indclass::oid[]) and oc.opcname = 'gin_trgm_ops') order by 1`,
    );
    expect(rows.map((r) => r.relname)).toEqual(
      expect.arrayContaining([
        'doc_pages_title_trgm_index',
        'doc_pages_body_trgm_index',
        'tasks_title_trgm_index',
        'tasks_description_trgm_index',
        'task_comments_body_trgm_index',
        'meetings_title_trgm_index',
        'feedback_title_trgm_index',
        'feedback_body_trgm_index',
        'feedback_comments_body_trgm_index',
      ]),
    );
    for (const r of rows) expect(r.options, r.relname).toContain('fastupdate=off');
  });

  it('uses the trigram indexes at a realistic size (thousands of rows, VACUUM ANALYZE)', async () => {
    const w = await world();
    const viewer = await sql(`select id, role from users where email = ?`, [w.admin.email]);
    const member = (await sql(`select id from users where email = ?`, [w.member.email]))[0].id;
    const project = (await sql(`select id from projects where slug = ?`, [w.slug]))[0].id;
    const filler = `md5(g::text) || ' ' || md5((g * 7)::text) || ' lorem ipsum dolor sit amet'`;
    await sql(
      `insert into tasks (id, project_id, number, code, title, description, kind, priority, status, creator_user_id, is_draft, created_at, updated_at)
       select gen_random_uuid(), ?, 1000 + g, ? || '-' || (1000 + g), 'task ' || ${filler}, repeat(${filler}, 5), 'task', 'medium', 'todo', ?, false, now(), now() from generate_series(1, 4000) g`,
      [project, w.slug.toUpperCase(), member],
    );
    await sql(
      `insert into task_comments (id, task_id, author_user_id, body, created_at) select gen_random_uuid(), t.id, t.creator_user_id, 'comment ' || md5(t.id::text), now() from tasks t where t.project_id = ?`,
      [project],
    );
    // Notifications of 40 users (the viewer one of them), 200 each.
    await sql(
      `insert into users (id, email, name, role, status, created_at, updated_at) select gen_random_uuid(), 'filler-' || g || '-' || md5(random()::text) || '@example.test', 'Filler', 'member', 'active', now(), now() from generate_series(1, 39) g`,
    );
    await sql(
      `insert into notifications (id, user_id, type, title, summary, body, created_at, updated_at)
       select gen_random_uuid(), u.id, 'system', 'note ' || ${filler}, ${filler}, repeat(${filler}, 3), now(), now()
         from (select id from users where email like 'filler-%' union all select ?::uuid) u cross join generate_series(1, 200) g`,
      [viewer[0].id],
    );
    await sql(
      `insert into meetings (id, project_id, title, starts_at, created_by_user_id, created_at) select gen_random_uuid(), ?, 'meeting ' || ${filler}, now(), ?, now() from generate_series(1, 3000) g`,
      [project, member],
    );
    await sql(
      `insert into feedback (id, project_id, author_user_id, is_anonymous, title, body, status, triage, created_at, updated_at) select gen_random_uuid(), ?, ?, false, 'fb ' || ${filler}, repeat(${filler}, 4), 'open', false, now(), now() from generate_series(1, 3000) g`,
      [project, member],
    );
    await sql(
      `insert into feedback_comments (id, feedback_id, author_user_id, body, created_at) select gen_random_uuid(), f.id, f.author_user_id, 'c ' || md5(f.id::text), now() from feedback f where f.project_id = ?`,
      [project],
    );
    // Steady state: autovacuum has collected statistics (the trigram indexes keep no pending list).
    for (const t of ['tasks', 'task_comments', 'notifications', 'meetings', 'feedback', 'feedback_comments']) await sql(`vacuum analyze ${t}`);

    const stmt = searchStatement(
      { userId: viewer[0].id, userRole: 'admin' },
      ['task', 'comment', 'notification', 'meeting', 'feedback'],
      'zq9unmatched',
      {},
      20,
      h.clock.now(),
    )!;
    const plan = (await sql(`explain ${stmt.text}`, [...stmt.params])).map((r: any) => r['QUERY PLAN']).join('\n');
    for (const index of [
      'tasks_title_trgm_index',
      'tasks_description_trgm_index',
      'task_comments_body_trgm_index',
      'meetings_title_trgm_index',
      'feedback_title_trgm_index',
      'feedback_body_trgm_index',
      'feedback_comments_body_trgm_index',
    ]) {
      expect(plan, plan).toContain(index);
    }
    expect(plan).not.toMatch(/Seq Scan on (tasks|task_comments|notifications|meetings|feedback|feedback_comments) /);
    // Notifications (no trigram index, see the migration): the caller's own rows through the owner
    // index (of a monthly partition, named by PostgreSQL, once notifications is partitioned).
    expect(plan).toMatch(/on notifications(?:_user_state_listed_index|_\d{4}_\d{2}_user_id_state_coalesce_id_idx) /);
    // A plain member: the visibility predicates join in, the text match still comes from the indexes.
    const m = searchStatement(
      { userId: member, userRole: 'member' },
      ['task', 'comment', 'notification', 'meeting', 'feedback'],
      'zq9unmatched',
      {},
      20,
      h.clock.now(),
    )!;
    const memberPlan = (await sql(`explain ${m.text}`, [...m.params])).map((r: any) => r['QUERY PLAN']).join('\n');
    for (const index of [
      'tasks_title_trgm_index',
      'tasks_description_trgm_index',
      'task_comments_body_trgm_index',
      'feedback_title_trgm_index',
      'feedback_comments_body_trgm_index',
    ]) {
      expect(memberPlan, memberPlan).toContain(index);
    }
    expect(memberPlan).not.toMatch(/Seq Scan on (tasks|task_comments|notifications|meetings|feedback|feedback_comments) /);
    // And through the tool: found among thousands of rows.
    await sql(`update meetings set title = 'the zq9needle review' where id = (select id from meetings where project_id = ? limit 1)`, [project]);
    expect((await search(w.admin, 'ZQ9NEEDLE')).hits.map((x: any) => x.type)).toEqual(['meeting']);
    // A query matching thousands of rows per type: ranked among the best 500 candidates of each, still ordered.
    const common = await search(w.admin, 'lorem ipsum', { limit: 100 });
    expect(common.count).toBe(100);
    expect(common.hits.map((x: any) => x.score)).toEqual([...common.hits.map((x: any) => x.score)].sort((a: number, b: number) => b - a));
    expect(common.hits.every((x: any) => x.matched_field === 'title')).toBe(true);
  });
});
