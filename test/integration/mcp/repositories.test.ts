// Repository tools through POST /mcp (SPEC C list_project_repositories, list_project_repository_commits,
// bind_project_repository, unbind_project_repository; "Agent token scopes" read:projects,
// code:repo:bind and the deprecated admin:projects; the bind rule: super admin, project lead,
// project tech lead or the code.repo.bind capability; project isolation: NOT_FOUND outside).
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator, startHarness, type Harness } from '../../helpers/harness.js';
import { runOperation } from '../../../src/app/run-operation.js';
import { parseCommand } from '../../../src/transports/cli/commands.js';
import { parseRepoUrl } from '../../../src/domain/repositories/repositories.rules.js';
import { mcp, newAgent, toolCalls } from './rpc.js';

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
const _system = async (op: any, input: Record<string, unknown>) =>
  (await runOperation(h.svc.deps, op, { surface: 'cli', requestId: 'req_test', input, log: h.svc.deps.log, system: true })).output;

const { agent, raw, ok, fails, invalid } = toolCalls(() => h);

async function world() {
  const [owner, lead, techLead, member, outsider, admin, superAdmin] = [
    await agent(),
    await agent(),
    await agent(),
    await agent(),
    await agent(),
    await agent('admin'),
    await agent('super_admin'),
  ];
  const slug = `r${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', {
    slug,
    name: `Project ${slug}`,
    owner: owner.email,
    members: [member.email],
    leads: [lead.email],
    tech_leads: [techLead.email],
  });
  const otherSlug = `o${randomBytes(4).toString('hex')}`;
  await operator(h, 'projects.create', { slug: otherSlug, name: `Other ${otherSlug}`, owner: outsider.email, members: [], leads: [], tech_leads: [] });
  return { slug, otherSlug, owner, lead, techLead, member, outsider, admin, superAdmin };
}

const NOT_FOUND_PROJECT = { error: 'NOT_FOUND: project not found' };
const repoCount = async (slug: string) =>
  Number((await sql('select count(*) as n from project_repositories r join projects p on p.id = r.project_id where p.slug = ?', [slug]))[0].n);

describe('tools/list and scopes', () => {
  it('advertises read:projects for the reads and code:repo:bind (or admin:projects) for bind and unbind', async () => {
    const reader = await agent('member', ['read:projects']);
    const names = (await mcp(h, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token: reader.token })).body.result.tools.map((t: any) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_project_repositories', 'list_project_repository_commits']));
    expect(names).not.toContain('bind_project_repository');
    expect(names).not.toContain('unbind_project_repository');

    const all = await agent();
    const tools = new Map<string, any>(
      (await mcp(h, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { token: all.token })).body.result.tools.map((t: any) => [t.name, t]),
    );
    expect(tools.get('list_project_repositories').requiredScopes).toEqual(['read:projects']);
    expect(tools.get('list_project_repository_commits').requiredScopes).toEqual(['read:projects']);
    expect(tools.get('bind_project_repository').requiredScopes).toEqual(['code:repo:bind', 'admin:projects']);
    expect(tools.get('unbind_project_repository').requiredScopes).toEqual(['code:repo:bind', 'admin:projects']);
    expect(tools.get('bind_project_repository').inputSchema.required).toEqual(['project_slug', 'provider', 'repo_url']);
  });

  it('a token lacking the scope gets 403 FORBIDDEN naming it; admin:projects still binds; read:* does not', async () => {
    const w = await world();
    const readOnly = await newAgent(h, ['read:*'], w.lead);
    const r = await raw(readOnly, 'bind_project_repository', { project_slug: w.slug, provider: 'gitea', repo_url: 'https://git.example.com/team/a' });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: -32003, data: { type: 'FORBIDDEN', missing_scope: 'code:repo:bind' } });
    expect((await raw(readOnly, 'unbind_project_repository', { project_slug: w.slug, repo_url: 'https://git.example.com/team/a' })).status).toBe(403);
    const bindOnly = await newAgent(h, ['code:repo:bind'], w.lead);
    expect((await raw(bindOnly, 'list_project_repositories', { project_slug: w.slug })).body.error.data.missing_scope).toBe('read:projects');
    expect((await raw(bindOnly, 'list_project_repository_commits', { project_slug: w.slug })).status).toBe(403);
    expect(await repoCount(w.slug)).toBe(0);

    const legacy = await newAgent(h, ['admin:projects'], w.lead);
    expect(await ok(legacy, 'bind_project_repository', { project_slug: w.slug, provider: 'gitea', repo_url: 'https://git.example.com/team/a' })).toMatchObject({
      created: true,
    });
    const codeAll = await newAgent(h, ['code:*'], w.lead);
    expect(await ok(codeAll, 'unbind_project_repository', { project_slug: w.slug, repo_url: 'https://git.example.com/team/a' })).toMatchObject({
      archived: true,
    });
  });
});

describe('bind_project_repository', () => {
  it('parses the URL into full_name, web_url and ssh_url, issues the webhook secret once, and lists the repository', async () => {
    const w = await world();
    const out = await ok(w.lead, 'bind_project_repository', { project_slug: w.slug, provider: 'gitea', repo_url: 'https://Git.Example.com/Team/Service.git/' });
    expect(out).toEqual({
      repo_id: expect.any(String),
      project_slug: w.slug,
      provider: 'gitea',
      web_url: 'https://git.example.com/Team/Service',
      full_name: 'Team/Service',
      default_branch: 'main',
      created: true,
      restored: false,
      ssh_url: 'git@git.example.com:Team/Service.git',
      webhook_url: `${base}/api/internal-os/integrations/repositories/${out.repo_id}/push`,
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const listed = await ok(w.member, 'list_project_repositories', { project_slug: w.slug });
    expect(listed).toEqual({
      project_slug: w.slug,
      count: 1,
      repositories: [
        {
          id: out.repo_id,
          provider: 'gitea',
          full_name: 'Team/Service',
          web_url: 'https://git.example.com/Team/Service',
          ssh_url: 'git@git.example.com:Team/Service.git',
          default_branch: 'main',
          is_monitored: false,
          archived: false,
        },
      ],
    });
    // The secret is never shown by a read, and the audit row names the tool without it.
    expect(JSON.stringify(listed)).not.toContain(out.webhook_secret);
    const audit = await sql('select action, source, actor_user_id, summary from audit_log where target_id = ?', [out.repo_id]);
    expect(audit).toEqual([
      {
        action: 'repositories.bound',
        source: 'mcp',
        actor_user_id: w.lead.userId,
        summary: expect.objectContaining({ tool: 'bind_project_repository', created: true, fullName: 'Team/Service' }),
      },
    ]);
    expect(JSON.stringify(audit)).not.toContain(out.webhook_secret);
  });

  it('binding the same repository again, by any spelling, answers created false with no secret and applies the given settings', async () => {
    const w = await world();
    const first = await ok(w.techLead, 'bind_project_repository', {
      project_slug: w.slug,
      provider: 'gitone',
      repo_url: 'https://code.example.org/platform/infra/deploy',
    });
    expect(first).toMatchObject({ full_name: 'platform/infra/deploy', created: true });
    for (const spelling of [
      'https://code.example.org/platform/infra/deploy',
      'https://CODE.example.org/Platform/Infra/Deploy.git',
      'git@code.example.org:platform/infra/deploy.git',
      'ssh://git@code.example.org:2222/platform/infra/deploy.git',
    ]) {
      const again = await ok(w.owner, 'bind_project_repository', { project_slug: w.slug, provider: 'gitone', repo_url: spelling });
      expect(again, spelling).toMatchObject({ repo_id: first.repo_id, created: false, restored: false, full_name: 'platform/infra/deploy' });
      expect(again.webhook_secret, spelling).toBeUndefined();
    }
    const updated = await ok(w.lead, 'bind_project_repository', {
      project_slug: w.slug,
      provider: 'gitone',
      repo_url: 'https://code.example.org/platform/infra/deploy',
      default_branch: 'refs/heads/release/2026',
      ssh_url: 'ssh://git@ssh.code.example.org:2222/platform/infra/deploy.git',
    });
    expect(updated).toMatchObject({
      repo_id: first.repo_id,
      created: false,
      default_branch: 'release/2026',
      ssh_url: 'ssh://git@ssh.code.example.org:2222/platform/infra/deploy.git',
    });
    expect(await repoCount(w.slug)).toBe(1);
    // The same address under the other provider is a conflict, not a second row.
    await ok(w.lead, 'bind_project_repository', { project_slug: w.slug, provider: 'gitone', repo_url: 'https://code.example.org/platform/tools' });
    expect(
      await fails(w.lead, 'bind_project_repository', { project_slug: w.slug, provider: 'gitea', repo_url: 'https://code.example.org/platform/tools' }),
    ).toEqual({ error: expect.stringMatching(/^CONFLICT: platform\/tools is bound in this project as a gitone repository/) });
    // Another project may bind the same repository: a separate binding.
    await sql('insert into project_members (project_id, user_id, role, created_at) select id, ?, ?, now() from projects where slug = ?', [
      w.lead.userId,
      'lead',
      w.otherSlug,
    ]);
    const other = await ok(w.lead, 'bind_project_repository', {
      project_slug: w.otherSlug,
      provider: 'gitone',
      repo_url: 'https://code.example.org/platform/infra/deploy',
    });
    expect(other).toMatchObject({ created: true });
    expect(other.repo_id).not.toBe(first.repo_id);
  });

  it('concurrent binds of one URL make one row', async () => {
    const w = await world();
    const outs = await Promise.all(
      [1, 2, 3, 4].map(() => ok(w.lead, 'bind_project_repository', { project_slug: w.slug, provider: 'gitea', repo_url: 'https://git.example.com/team/race' })),
    );
    expect(new Set(outs.map((o) => o.repo_id)).size).toBe(1);
    expect(outs.filter((o) => o.created)).toHaveLength(1);
    expect(outs.filter((o) => o.webhook_secret !== undefined)).toHaveLength(1);
    expect(await repoCount(w.slug)).toBe(1);
  });

  it('is for super admins, the project owner, lead and tech lead, and holders of code.repo.bind; others are refused', async () => {
    const w = await world();
    const args = (n: string) => ({ project_slug: w.slug, provider: 'gitea', repo_url: `https://git.example.com/team/${n}` });
    for (const [who, a] of [
      ['owner', w.owner],
      ['lead', w.lead],
      ['tech lead', w.techLead],
      ['super admin (not a member)', w.superAdmin],
    ] as const) {
      expect(await ok(a, 'bind_project_repository', args(`by-${who.replace(/\W/g, '')}`)), who).toMatchObject({ created: true });
    }
    // A plain member and an admin see the project but may not bind.
    for (const a of [w.member, w.admin]) {
      expect(await fails(a, 'bind_project_repository', args('nope'))).toEqual({
        error: 'FORBIDDEN: binding repositories needs a super admin, the project lead or tech lead, or the code.repo.bind capability',
      });
      expect((await fails(a, 'unbind_project_repository', { project_slug: w.slug, repo_url: 'https://git.example.com/team/by-lead' })).error).toMatch(
        /^FORBIDDEN:/,
      );
    }
    // An outsider learns nothing: the project is not found, exactly as an unknown slug.
    expect(await fails(w.outsider, 'bind_project_repository', args('nope'))).toEqual(NOT_FOUND_PROJECT);
    expect(await fails(w.outsider, 'bind_project_repository', { ...args('nope'), project_slug: `missing-${randomBytes(3).toString('hex')}` })).toEqual(
      NOT_FOUND_PROJECT,
    );

    // The capability lets a member bind, in projects they see only; revoking it takes it away.
    // Granted and revoked the way an operator does it: `npx fluxdesk user grant-capability ...`.
    const cli = (argv: string[]) => {
      const c = parseCommand(argv) as { op: string; input: Record<string, unknown> };
      return operator<{ changed: boolean }>(h, c.op, c.input);
    };
    await cli(['user', 'grant-capability', '--email', w.member.email, '--capability', 'code.repo.bind']);
    expect(await ok(w.member, 'bind_project_repository', args('by-capability'))).toMatchObject({ created: true });
    expect(await fails(w.member, 'bind_project_repository', { ...args('x'), project_slug: w.otherSlug })).toEqual(NOT_FOUND_PROJECT);
    expect(await ok(w.member, 'unbind_project_repository', { project_slug: w.slug, repo_url: 'https://git.example.com/team/by-capability' })).toMatchObject({
      archived: true,
    });
    expect(await cli(['user', 'revoke-capability', '--email', w.member.email, '--capability', 'code.repo.bind'])).toMatchObject({ changed: true });
    expect((await fails(w.member, 'bind_project_repository', args('again'))).error).toMatch(/^FORBIDDEN:/);
    expect(await repoCount(w.slug)).toBe(5);
  });

  it('bad URLs and branch names are input errors naming the field, all at once, and nothing is stored', async () => {
    const w = await world();
    const bad = async (args: Record<string, unknown>) => invalid(w.lead, 'bind_project_repository', { project_slug: w.slug, provider: 'gitea', ...args });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ repo_url: 'ftp://git.example.com/team/a' }, 'repo_url', 'repo_url_scheme'],
      [{ repo_url: 'https://alice:hunter2@git.example.com/team/a' }, 'repo_url', 'repo_url_credentials'],
      [{ repo_url: 'https://token@git.example.com/team/a' }, 'repo_url', 'repo_url_credentials'],
      [{ repo_url: 'https://git.example.com/team' }, 'repo_url', 'repo_path_invalid'],
      [{ repo_url: 'https://git.example.com/' }, 'repo_url', 'repo_path_invalid'],
      [{ repo_url: 'https://git.example.com/team/a?tab=code' }, 'repo_url', 'repo_url_invalid'],
      [{ repo_url: 'https://git.example.com/team/a#readme' }, 'repo_url', 'repo_url_invalid'],
      [{ repo_url: 'https://git.example.com/team/../a' }, 'repo_url', 'repo_path_invalid'],
      [{ repo_url: 'https://git.example.com/team/a%20b' }, 'repo_url', 'repo_path_invalid'],
      [{ repo_url: 'git.example.com/team/a' }, 'repo_url', 'repo_url_invalid'],
      [{ repo_url: 'not a url' }, 'repo_url', 'repo_url_invalid'],
      [{ repo_url: '' }, 'repo_url', 'required'],
      [{ repo_url: `https://git.example.com/team/${'a'.repeat(600)}` }, 'repo_url', 'too_long'],
      // gitea has no groups; the URL of a page inside the repository is not the repository.
      [{ repo_url: 'https://git.example.com/team/a/src/branch/main' }, 'repo_url', 'repo_path_invalid'],
      [{ repo_url: 'https://git.example.com/team/a', ssh_url: 'https://git.example.com/team/a' }, 'ssh_url', 'ssh_url_invalid'],
      [{ repo_url: 'https://git.example.com/team/a', ssh_url: 'git@git.example.com:team/b.git' }, 'ssh_url', 'ssh_url_mismatch'],
      [{ repo_url: 'https://git.example.com/team/a', default_branch: 'feature..x' }, 'default_branch', 'branch_invalid'],
      [{ repo_url: 'https://git.example.com/team/a', default_branch: 'has space' }, 'default_branch', 'branch_invalid'],
      [{ repo_url: 'https://git.example.com/team/a', provider: 'github' }, 'provider', 'invalid_enum'],
      [{ repo_url: 42 }, 'repo_url', 'invalid_type'],
    ];
    for (const [args, field, code] of cases) {
      const data = await bad(args);
      expect(data.field, JSON.stringify(args)).toBe(field);
      expect(data.errors[0], JSON.stringify(args)).toMatchObject({ field, code });
    }
    // Several problems are reported together.
    const many = await invalid(w.lead, 'bind_project_repository', {
      project_slug: w.slug,
      provider: 'svn',
      repo_url: 'ftp://x/y/z',
      default_branch: 'a..b',
      extra: 1,
    });
    expect(many.errors.map((e) => e.field).sort()).toEqual(['default_branch', 'extra', 'provider', 'repo_url']);
    expect(await invalid(w.lead, 'bind_project_repository', {})).toMatchObject({
      errors: expect.arrayContaining([
        expect.objectContaining({ field: 'project_slug', code: 'required' }),
        expect.objectContaining({ field: 'repo_url', code: 'required' }),
      ]),
    });
    expect(await repoCount(w.slug)).toBe(0);
    // A credentials URL never reaches the audit log either.
    expect(await sql(`select 1 from audit_log where summary::text like '%hunter2%'`)).toEqual([]);
  });
});

describe('unbind_project_repository', () => {
  it('archives the binding (idempotent), keeps it listed as archived, and a re-bind restores it with a new secret', async () => {
    const w = await world();
    const bound = await ok(w.lead, 'bind_project_repository', {
      project_slug: w.slug,
      provider: 'gitea',
      repo_url: 'https://git.example.com/team/svc',
      default_branch: 'trunk',
    });
    const un = await ok(w.techLead, 'unbind_project_repository', { project_slug: w.slug, repo_url: 'git@git.example.com:team/svc.git' });
    expect(un).toEqual({ repo_id: bound.repo_id, project_slug: w.slug, archived: true });
    expect(await ok(w.techLead, 'unbind_project_repository', { project_slug: w.slug, repo_url: 'https://git.example.com/team/svc' })).toEqual(un);
    expect((await ok(w.member, 'list_project_repositories', { project_slug: w.slug })).repositories).toEqual([
      expect.objectContaining({ id: bound.repo_id, archived: true, is_monitored: false }),
    ]);
    const audit = await sql('select action from audit_log where target_id = ? order by created_at', [bound.repo_id]);
    expect(audit.map((r) => r.action)).toEqual(['repositories.bound', 'repositories.unbound']);

    const again = await ok(w.lead, 'bind_project_repository', { project_slug: w.slug, provider: 'gitea', repo_url: 'https://git.example.com/team/svc' });
    expect(again).toMatchObject({
      repo_id: bound.repo_id,
      created: false,
      restored: true,
      default_branch: 'trunk',
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
    expect(again.webhook_secret).not.toBe(bound.webhook_secret);
    expect((await ok(w.member, 'list_project_repositories', { project_slug: w.slug })).repositories[0]).toMatchObject({ archived: false });
  });

  it('a repository never bound here is NOT_FOUND; a bad URL is an input error', async () => {
    const w = await world();
    await ok(w.lead, 'bind_project_repository', { project_slug: w.slug, provider: 'gitea', repo_url: 'https://git.example.com/team/here' });
    expect(await fails(w.lead, 'unbind_project_repository', { project_slug: w.slug, repo_url: 'https://git.example.com/team/elsewhere' })).toEqual({
      error: 'NOT_FOUND: repository not found',
    });
    expect(await fails(w.lead, 'unbind_project_repository', { project_slug: w.otherSlug, repo_url: 'https://git.example.com/team/here' })).toEqual(
      NOT_FOUND_PROJECT,
    );
    expect((await invalid(w.lead, 'unbind_project_repository', { project_slug: w.slug, repo_url: 'https://u:p@git.example.com/team/here' })).field).toBe(
      'repo_url',
    );
  });
});

describe('read tools: project isolation', () => {
  it('a non-member, an unknown project and an archived project all get NOT_FOUND; nothing leaks', async () => {
    const w = await world();
    const bound = await ok(w.lead, 'bind_project_repository', {
      project_slug: w.slug,
      provider: 'gitea',
      repo_url: 'https://git.example.com/team/secret-name',
    });
    const outsiderRead = await newAgent(h, ['read:projects'], w.outsider);
    for (const [name, args] of [
      ['list_project_repositories', { project_slug: w.slug }],
      ['list_project_repository_commits', { project_slug: w.slug }],
      ['list_project_repository_commits', { project_slug: w.slug, repo_id: bound.repo_id }],
    ] as const) {
      const out = await fails(outsiderRead, name, args);
      expect(out, name).toEqual(NOT_FOUND_PROJECT);
      expect(JSON.stringify(out)).not.toContain('secret-name');
      expect(await fails(outsiderRead, name, { ...args, project_slug: `nope-${randomBytes(3).toString('hex')}` })).toEqual(NOT_FOUND_PROJECT);
    }
    // The outsider's own project does not open another project's repository id.
    expect(await fails(outsiderRead, 'list_project_repository_commits', { project_slug: w.otherSlug, repo_id: bound.repo_id })).toEqual({
      error: 'NOT_FOUND: repository not found',
    });
    expect(await fails(outsiderRead, 'list_project_repository_commits', { project_slug: w.otherSlug, repo_id: randomUUID() })).toEqual({
      error: 'NOT_FOUND: repository not found',
    });
    // Org-wide readers (admins) see it.
    expect((await ok(w.admin, 'list_project_repositories', { project_slug: w.slug })).count).toBe(1);
    // An archived project is gone for everyone.
    await sql('update projects set archived_at = now() where slug = ?', [w.slug]);
    expect(await fails(w.owner, 'list_project_repositories', { project_slug: w.slug })).toEqual(NOT_FOUND_PROJECT);
    expect(await fails(w.lead, 'bind_project_repository', { project_slug: w.slug, provider: 'gitea', repo_url: 'https://git.example.com/team/x' })).toEqual(
      NOT_FOUND_PROJECT,
    );
  });

  it('an empty project lists nothing; the commit list validates its filters', async () => {
    const w = await world();
    expect(await ok(w.member, 'list_project_repositories', { project_slug: w.slug })).toEqual({ project_slug: w.slug, count: 0, repositories: [] });
    expect(await ok(w.member, 'list_project_repository_commits', { project_slug: w.slug, branch: 'main' })).toEqual({
      project_slug: w.slug,
      count: 0,
      branch_filter: 'main',
      commits: [],
    });
    const data = await invalid(w.member, 'list_project_repository_commits', { project_slug: w.slug, repo_id: 'abc', branch: 'a b', limit: 101 });
    expect(data.errors.map((e) => e.field).sort()).toEqual(['branch', 'limit', 'repo_id']);
  });
});

describe('URL parsing rules', () => {
  it('derives the same repository key from every accepted spelling', () => {
    const keys = ['https://git.example.com/a/b', 'http://GIT.example.com:3000/a/B.git', 'git@git.example.com:a/b.git', 'ssh://git@git.example.com:22/a/b'].map(
      (u) => {
        const r = parseRepoUrl(u);
        if (!r.ok) throw new Error(u);
        return r.value.key;
      },
    );
    expect(new Set(keys)).toEqual(new Set(['git.example.com/a/b']));
    expect(parseRepoUrl('http://git.example.com:3000/a/b')).toMatchObject({
      ok: true,
      value: { webUrl: 'http://git.example.com:3000/a/b', sshUrl: 'git@git.example.com:a/b.git' },
    });
    expect(parseRepoUrl('https://git.example.com/a/.github')).toMatchObject({ ok: true, value: { fullName: 'a/.github' } });
    expect(parseRepoUrl('https://git.example.com/a/b/c/d/e/f')).toMatchObject({ ok: false, code: 'repo_path_invalid' });
  });
});
