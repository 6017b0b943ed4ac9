// How commits arrive (agent protocol 15): the push webhook of a bound repository,
// POST /api/internal-os/integrations/repositories/<repo_id>/push, signed with the repository's
// secret (X-Gitea-Signature: hex HMAC-SHA256 of the raw body), Gitea-style push payload; then
// list_project_repository_commits through POST /mcp. Every bad delivery is a documented 4xx.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, operator, startHarness, type Harness } from '../../helpers/harness.js';
import { toolCalls, toolText, type AgentUser } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;

const { agent, raw, ok } = toolCalls(() => h);

interface Bound {
  lead: AgentUser;
  member: AgentUser;
  outsider: AgentUser;
  slug: string;
  repoId: string;
  secret: string;
  path: string;
}

async function boundRepo(name = `svc-${randomBytes(3).toString('hex')}`): Promise<Bound> {
  const [lead, member, outsider] = [await agent(), await agent(), await agent()];
  const slug = `w${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', { slug, name: `P ${slug}`, owner: lead.email, members: [member.email], leads: [], tech_leads: [] });
  const out = await ok(lead, 'bind_project_repository', { project_slug: slug, provider: 'gitea', repo_url: `https://git.example.com/team/${name}` });
  return { lead, member, outsider, slug, repoId: out.repo_id, secret: out.webhook_secret, path: new URL(out.webhook_url).pathname };
}

const sha = () => randomBytes(20).toString('hex');
const sign = (secret: string, body: string | Buffer) => createHmac('sha256', secret).update(body).digest('hex');

function commit(over: Record<string, unknown> = {}) {
  const id = sha();
  return {
    id,
    message: 'Fix the build\n\nLonger explanation.',
    url: `https://git.example.com/team/svc/commit/${id}`,
    author: { name: 'Ada Lovelace', email: 'ada@example.com', username: 'ada' },
    committer: { name: 'Ada', email: 'ada@example.com' },
    timestamp: '2026-11-20T10:00:00+08:00',
    added: [],
    removed: [],
    modified: ['README.md'],
    ...over,
  };
}

function push(b: Bound, payload: unknown, opts: { secret?: string; headers?: Record<string, string>; raw?: string } = {}) {
  const body = opts.raw ?? JSON.stringify(payload);
  return http(h, 'POST', b.path, {
    rawBody: body,
    headers: { 'content-type': 'application/json', 'x-gitea-event': 'push', 'x-gitea-signature': sign(opts.secret ?? b.secret, body), ...opts.headers },
  });
}

const payloadFor = (b: Bound, commits: unknown[], ref = 'refs/heads/main', fullName?: string) => ({
  ref,
  before: '0'.repeat(40),
  after: (commits.at(-1) as { id?: string } | undefined)?.id ?? '0'.repeat(40),
  compare_url: 'https://git.example.com/compare',
  commits,
  repository: { id: 7, name: 'svc', full_name: fullName ?? (b.path && undefined) },
  pusher: { login: 'ada' },
});

const commitCount = async (repoId: string) => Number((await sql('select count(*) as n from repository_commits where repository_id = ?', [repoId]))[0].n);

describe('push webhook -> list_project_repository_commits', () => {
  it("stores a signed push and lists its commits newest first with the spec's fields", async () => {
    const b = await boundRepo('svc');
    const older = commit({ message: 'Add feature\n\nbody', timestamp: '2026-11-20T09:00:00Z' });
    const newer = commit({ message: '\n  Fix the build  \nmore', timestamp: '2026-11-20T10:00:00+08:00', author: { name: '', email: 'bot@example.com' } });
    const r = await push(b, payloadFor(b, [older, newer], 'refs/heads/main', 'team/svc'));
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ ok: true, repo_id: b.repoId, branch: 'main', received: 2, stored: 2 });

    const out = await ok(b.member, 'list_project_repository_commits', { project_slug: b.slug });
    expect(out).toEqual({
      project_slug: b.slug,
      count: 2,
      branch_filter: null,
      commits: [
        // 10:00+08:00 = 02:00Z comes before 09:00Z.
        {
          repo_full_name: 'team/svc',
          provider: 'gitea',
          short_sha: older.id.slice(0, 7),
          title: 'Add feature',
          url: older.url,
          actor: 'Ada Lovelace',
          occurred_at: '2026-11-20T09:00:00.000Z',
        },
        {
          repo_full_name: 'team/svc',
          provider: 'gitea',
          short_sha: newer.id.slice(0, 7),
          title: 'Fix the build',
          url: newer.url,
          actor: 'bot@example.com',
          occurred_at: '2026-11-20T02:00:00.000Z',
        },
      ],
    });
    expect((await ok(b.member, 'list_project_repositories', { project_slug: b.slug })).repositories[0]).toMatchObject({ is_monitored: true, archived: false });
    expect((await ok(b.member, 'list_project_repository_commits', { project_slug: b.slug, repo_id: b.repoId, limit: 1 })).commits).toHaveLength(1);
  });

  it('is idempotent: a redelivery adds nothing, the same sha on another branch only gains the branch, concurrent deliveries make one row', async () => {
    const b = await boundRepo();
    const c1 = commit();
    const c2 = commit();
    const payload = payloadFor(b, [c1, c2]);
    expect((await push(b, payload)).body).toMatchObject({ stored: 2 });
    expect((await push(b, payload)).body).toMatchObject({ received: 2, stored: 0 });
    // The same commit twice in one payload counts once.
    expect((await push(b, payloadFor(b, [c1, c1], 'refs/heads/feature/x'))).body).toMatchObject({ branch: 'feature/x', received: 1, stored: 0 });
    expect(await commitCount(b.repoId)).toBe(2);
    const onFeature = await ok(b.member, 'list_project_repository_commits', { project_slug: b.slug, branch: 'refs/heads/feature/x' });
    expect(onFeature).toMatchObject({ branch_filter: 'feature/x', count: 1, commits: [{ short_sha: c1.id.slice(0, 7) }] });
    expect((await ok(b.member, 'list_project_repository_commits', { project_slug: b.slug, branch: 'main' })).count).toBe(2);
    expect((await ok(b.member, 'list_project_repository_commits', { project_slug: b.slug, branch: 'nope' })).count).toBe(0);

    const many = Array.from({ length: 30 }, () => commit());
    const burst = payloadFor(b, many, 'refs/heads/main');
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => push(b, burst)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(results.reduce((n, r) => n + r.body.stored, 0)).toBe(30);
    expect(await commitCount(b.repoId)).toBe(32);
  });

  it('accepts X-Hub-Signature-256 (sha256=<hex>) and acknowledges, without storing, other events and tag pushes', async () => {
    const b = await boundRepo();
    const body = JSON.stringify(payloadFor(b, [commit()]));
    const hub = await http(h, 'POST', b.path, {
      rawBody: body,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-hub-signature-256': `sha256=${sign(b.secret, body)}` },
    });
    expect(hub.status, hub.text).toBe(200);
    expect(hub.body.stored).toBe(1);
    expect((await push(b, { ref: 'refs/heads/main' }, { headers: { 'x-gitea-event': 'issues' } })).body).toEqual({
      ok: true,
      repo_id: b.repoId,
      branch: null,
      received: 0,
      stored: 0,
      ignored: 'event issues is not recorded',
    });
    expect((await push(b, payloadFor(b, [commit()], 'refs/tags/v1.0'))).body).toMatchObject({ ok: true, ignored: 'not a branch ref', stored: 0 });
    // A branch deletion carries no commits.
    expect((await push(b, { ref: 'refs/heads/gone', commits: null })).body).toMatchObject({ branch: 'gone', received: 0, stored: 0 });
    expect(await commitCount(b.repoId)).toBe(1);
  });
});

describe('push webhook: every bad delivery is a documented 4xx and stores nothing', () => {
  it('401 without or with a wrong signature; 404 for an unknown repository; 400 for a malformed id', async () => {
    const b = await boundRepo();
    const payload = payloadFor(b, [commit()]);
    const body = JSON.stringify(payload);
    const missing = await http(h, 'POST', b.path, { rawBody: body, headers: { 'content-type': 'application/json' } });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ error: 'signature_missing' });
    const wrong = await push(b, payload, { secret: 'not-the-secret' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: 'signature_mismatch' });
    // Signed over different bytes (a proxy re-serialised the JSON).
    const tampered = await http(h, 'POST', b.path, {
      rawBody: JSON.stringify(payload, null, 2),
      headers: { 'content-type': 'application/json', 'x-gitea-signature': sign(b.secret, body) },
    });
    expect(tampered.status).toBe(401);
    expect((await http(h, 'POST', b.path, { rawBody: body, headers: { 'content-type': 'application/json', 'x-gitea-signature': 'zz' } })).status).toBe(401);
    const unknown = await http(h, 'POST', `/api/internal-os/integrations/repositories/${randomUUID()}/push`, {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'x-gitea-signature': sign(b.secret, body) },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'not_found', message: 'repository not found' });
    const badId = await http(h, 'POST', '/api/internal-os/integrations/repositories/not-a-uuid/push', {
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(badId.status).toBe(400);
    expect(badId.body).toMatchObject({ error: 'schema_invalid', field: 'repo_id' });
    expect(await commitCount(b.repoId)).toBe(0);
    expect((await ok(b.member, 'list_project_repositories', { project_slug: b.slug })).repositories[0].is_monitored).toBe(false);
  });

  it("400 for a signed body that is not JSON or not a push payload (every issue listed); 409 for another repository's payload", async () => {
    const b = await boundRepo('svc');
    const notJson = await push(b, undefined, { raw: '{"ref": ' });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ error: 'malformed_json' });
    const invalidUtf8 = Buffer.from([0x7b, 0xff, 0x7d]);
    const r8 = await http(h, 'POST', b.path, {
      rawBody: invalidUtf8,
      headers: { 'content-type': 'application/json', 'x-gitea-signature': sign(b.secret, invalidUtf8) },
    });
    expect(r8.status).toBe(400);
    expect(r8.body).toMatchObject({ error: 'malformed_json' });
    const bad = await push(b, { commits: [{ id: 'abc', message: 'x', timestamp: 'yesterday' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('schema_invalid');
    expect(bad.body.errors.map((e: any) => e.field).sort()).toEqual(['commits[0].id', 'commits[0].timestamp', 'ref']);
    const tooMany = await push(b, {
      ref: 'refs/heads/main',
      commits: Array.from({ length: 2001 }, () => ({ id: 'a'.repeat(40), message: 'm', timestamp: '2026-11-20T10:00:00Z' })),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: 'schema_invalid', field: 'commits', reason: 'too_many' });
    const other = await push(b, payloadFor(b, [commit()], 'refs/heads/main', 'someone/else'));
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: 'repository_mismatch' });
    expect(await commitCount(b.repoId)).toBe(0);
  });

  it('415 for a non-JSON content type, 413 above 1 MB', async () => {
    const b = await boundRepo();
    const form = await http(h, 'POST', b.path, {
      rawBody: 'payload=%7B%7D',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-gitea-signature': sign(b.secret, 'payload=%7B%7D') },
    });
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({ error: 'unsupported_media_type' });
    // Above the 256 KB limit of the other routes, below 1 MB: accepted.
    const big = payloadFor(b, [
      commit({ message: `Big\n${'x'.repeat(90_000)}` }),
      commit({ message: `Big\n${'y'.repeat(90_000)}` }),
      commit({ message: `Big\n${'z'.repeat(90_000)}` }),
    ]);
    expect((await push(b, big)).status).toBe(200);
    const huge = JSON.stringify({ ref: 'refs/heads/main', padding: 'x'.repeat(1024 * 1024) });
    const tooLarge = await http(h, 'POST', b.path, {
      rawBody: huge,
      headers: { 'content-type': 'application/json', 'x-gitea-signature': sign(b.secret, huge) },
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toMatchObject({ error: 'payload_too_large' });
  });

  it('410 once the repository is unbound; a re-bind issues a new secret and the old one stops working', async () => {
    const b = await boundRepo('svc2');
    expect((await push(b, payloadFor(b, [commit()]))).status).toBe(200);
    await ok(b.lead, 'unbind_project_repository', { project_slug: b.slug, repo_url: 'https://git.example.com/team/svc2' });
    const gone = await push(b, payloadFor(b, [commit()]));
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ error: 'repository_unbound' });
    // History stays readable after the unbind.
    expect((await ok(b.member, 'list_project_repository_commits', { project_slug: b.slug })).count).toBe(1);
    const again = await ok(b.lead, 'bind_project_repository', { project_slug: b.slug, provider: 'gitea', repo_url: 'https://git.example.com/team/svc2' });
    expect((await push(b, payloadFor(b, [commit()]))).status).toBe(401);
    expect((await push(b, payloadFor(b, [commit()]), { secret: again.webhook_secret })).status).toBe(200);
    expect(await commitCount(b.repoId)).toBe(2);
  });

  it('commits are readable by project members only', async () => {
    const b = await boundRepo();
    await push(b, payloadFor(b, [commit({ message: 'internal codename' })]));
    const r = await raw(b.outsider, 'list_project_repository_commits', { project_slug: b.slug });
    expect(toolText(r.body)).toEqual({ error: 'NOT_FOUND: project not found' });
    expect(r.text).not.toContain('codename');
  });
});
