// The repository tools and the push webhook on the embedded database (PGlite): the same migration
// and SQL as PostgreSQL (text[] branches, jsonb_to_recordset, xmax upsert, row locks).
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, operator, startHarness, type Harness } from '../../helpers/harness.js';
import { toolCalls } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: 'embedded' });
});
afterAll(async () => {
  await h?.close();
});

const { agent, ok } = toolCalls(() => h);

describe('repositories on the embedded database', () => {
  it('bind, push twice, list commits by branch, unbind', async () => {
    const lead = await agent();
    await operator(h, 'projects.create', { slug: 'emb', name: 'Embedded', owner: lead.email, members: [], leads: [], tech_leads: [] });
    const bound = await ok(lead, 'bind_project_repository', { project_slug: 'emb', provider: 'gitone', repo_url: 'git@git.example.com:group/sub/app.git' });
    expect(bound).toMatchObject({
      created: true,
      full_name: 'group/sub/app',
      web_url: 'https://git.example.com/group/sub/app',
      ssh_url: 'git@git.example.com:group/sub/app.git',
    });
    expect(
      (await ok(lead, 'bind_project_repository', { project_slug: 'emb', provider: 'gitone', repo_url: 'https://git.example.com/group/sub/app' })).created,
    ).toBe(false);

    const ids = [randomBytes(20).toString('hex'), randomBytes(20).toString('hex')];
    const send = (ref: string) => {
      const body = JSON.stringify({
        ref,
        commits: ids.map((id, i) => ({ id, message: `change ${i}`, author: { name: 'Dev', email: 'd@example.com' }, timestamp: `2026-11-2${i}T00:00:00Z` })),
      });
      return http(h, 'POST', new URL(bound.webhook_url).pathname, {
        rawBody: body,
        headers: { 'content-type': 'application/json', 'x-gitea-signature': createHmac('sha256', bound.webhook_secret).update(body).digest('hex') },
      });
    };
    expect((await send('refs/heads/main')).body).toMatchObject({ received: 2, stored: 2 });
    expect((await send('refs/heads/dev')).body).toMatchObject({ received: 2, stored: 0 });
    const dev = await ok(lead, 'list_project_repository_commits', { project_slug: 'emb', branch: 'dev' });
    expect(dev).toMatchObject({ count: 2, branch_filter: 'dev', commits: [{ title: 'change 1', actor: 'Dev' }, { title: 'change 0' }] });
    expect(await ok(lead, 'unbind_project_repository', { project_slug: 'emb', repo_url: 'https://git.example.com/group/sub/app' })).toEqual({
      repo_id: bound.repo_id,
      project_slug: 'emb',
      archived: true,
    });
    expect((await send('refs/heads/main')).status).toBe(410);
    expect((await ok(lead, 'list_project_repositories', { project_slug: 'emb' })).repositories).toMatchObject([{ archived: true, is_monitored: false }]);
  });
});
