// The work tools (tasks, feedback, docs, repositories, search) through both official SDK clients,
// unchanged: the 1.x `Client` of @modelcontextprotocol/sdk (initialize, 2025-11-25) and the 2.x
// `Client` of @modelcontextprotocol/client negotiating the stateless 2026-07-28 revision. Both
// validate structuredContent against each tool's advertised outputSchema, so a successful call here
// also proves the output matches the schema the server lists.
import { randomBytes } from 'node:crypto';
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';
import { newAgent, type AgentUser } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

interface ToolResult {
  isError?: boolean;
  structuredContent?: unknown;
  content: unknown;
}
/** What the flow needs of a connected SDK client, whichever line it is. */
interface Conn {
  protocolVersion: string | undefined;
  tools(): Promise<Array<{ name: string; outputSchema?: unknown }>>;
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

const url = () => new URL(`${h.baseUrl}/mcp`);
const auth = (token: string) => ({ requestInit: { headers: { Authorization: `Bearer ${token}` } } });

const CLIENTS: Array<{ name: string; expectedVersion: string; connect(token: string): Promise<Conn> }> = [
  {
    name: '@modelcontextprotocol/sdk 1.x Client',
    expectedVersion: '2025-11-25',
    async connect(token) {
      const transport = new Transport1(url(), auth(token));
      const client = new Client1({ name: 'fluxdesk-work-1x', version: '1.0.0' });
      await client.connect(transport);
      return {
        protocolVersion: transport.protocolVersion,
        tools: async () => (await client.listTools()).tools,
        call: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
        close: () => client.close(),
      };
    },
  },
  {
    name: '@modelcontextprotocol/client 2.x Client (stateless 2026-07-28)',
    expectedVersion: '2026-07-28',
    async connect(token) {
      const client = new Client2({ name: 'fluxdesk-work-2x', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new Transport2(url(), auth(token)));
      return {
        protocolVersion: client.getNegotiatedProtocolVersion(),
        tools: async () => (await client.listTools()).tools,
        call: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
        close: () => client.close(),
      };
    },
  },
];

const text = (r: ToolResult) => JSON.parse((r.content as Array<{ type: string; text: string }>)[0]!.text);

describe.each(CLIENTS)('work tools through $name', ({ expectedVersion, connect }) => {
  let owner: AgentUser;
  let outsider: AgentUser;
  let slug: string;
  let me: Conn;
  let other: Conn;

  beforeAll(async () => {
    const u = await operator<{ userId: string; email: string }>(h, 'users.create', { email: uniqueEmail('work-owner'), name: 'Work Owner', role: 'member' });
    owner = await newAgent(h, undefined, u);
    outsider = await newAgent(h);
    slug = `w${randomBytes(4).toString('hex')}`;
    await operator(h, 'projects.create', { slug, name: `Work ${slug}`, owner: owner.email, members: [], leads: [], tech_leads: [] });
    me = await connect(owner.token);
    other = await connect(outsider.token);
  });
  afterAll(async () => {
    await me?.close();
    await other?.close();
  });

  /** A successful call: not an error, and structuredContent (validated by the SDK) equals the text. */
  async function ok(c: Conn, name: string, args: Record<string, unknown>): Promise<any> {
    const r = await c.call(name, args);
    expect(r.isError, JSON.stringify(r.content)).toBe(false);
    expect(r.structuredContent).toBeDefined();
    expect(text(r)).toEqual(r.structuredContent);
    return r.structuredContent;
  }
  /** A tool failure for an id the caller cannot see: the flat NOT_FOUND envelope. */
  async function notFound(c: Conn, name: string, args: Record<string, unknown>): Promise<void> {
    const r = await c.call(name, args);
    expect(r.isError, JSON.stringify(r.content)).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(text(r).error).toMatch(/^NOT_FOUND: /);
  }

  it('negotiated the expected revision, and every work tool of the flow advertises an outputSchema', async () => {
    expect(me.protocolVersion).toBe(expectedVersion);
    const byName = new Map((await me.tools()).map((t) => [t.name, t]));
    for (const name of [
      'create_task',
      'list_tasks',
      'get_task',
      'create_feedback',
      'get_feedback',
      'create_doc_draft',
      'publish_doc_draft',
      'search_docs',
      'get_doc',
      'bind_project_repository',
      'list_project_repositories',
      'search',
    ]) {
      expect(byName.get(name)?.outputSchema, name).toMatchObject({ type: 'object' });
    }
  });

  it('create_task -> list_tasks -> get_task, create_feedback -> get_feedback, doc draft -> publish -> search_docs, bind -> list repositories, search; another user gets NOT_FOUND', async () => {
    const word = `zq${randomBytes(5).toString('hex')}`;

    // Tasks.
    const task = await ok(me, 'create_task', { title: `Ship ${word}`, project_slug: slug, priority: 'high' });
    expect(task).toMatchObject({ code: `${slug.toUpperCase()}-1`, priority: 'high', draft: false, status: 'todo' });
    const tasks = await ok(me, 'list_tasks', { project: slug });
    expect(tasks.items.map((t: any) => t.code)).toEqual([task.code]);
    expect(tasks.items[0]).toMatchObject({ task_id: task.task_id, title: `Ship ${word}`, project_slug: slug, status: 'todo' });
    expect(await ok(me, 'get_task', { code: task.code })).toMatchObject({ code: task.code, title: `Ship ${word}` });

    // Feedback.
    const fb = await ok(me, 'create_feedback', { title: `Idea ${word}`, body: 'Make it faster.', project_slug: slug });
    expect(fb).toMatchObject({ project_slug: slug, triage: false, is_anonymous: false });
    expect(await ok(me, 'get_feedback', { feedback_id: fb.feedback_id })).toMatchObject({
      feedback_id: fb.feedback_id,
      title: `Idea ${word}`,
      body: 'Make it faster.',
      is_mine: true,
    });

    // Docs.
    const draft = await ok(me, 'create_doc_draft', { project_slug: slug, title: `Runbook ${word}`, body: `How to ship ${word} safely.`, kind: 'runbook' });
    expect(await ok(me, 'publish_doc_draft', { page_id: draft.page_id })).toMatchObject({ status: 'published' });
    const docs = await ok(me, 'search_docs', { query: word });
    expect(docs.hits.map((d: any) => d.id)).toEqual([draft.page_id]);

    // Repositories.
    const repo = await ok(me, 'bind_project_repository', { project_slug: slug, provider: 'gitea', repo_url: `https://git.example.com/team/${word}` });
    expect(repo).toMatchObject({ project_slug: slug, provider: 'gitea', full_name: `team/${word}`, created: true });
    const repos = await ok(me, 'list_project_repositories', { project_slug: slug });
    expect(repos).toMatchObject({ project_slug: slug, count: 1, repositories: [{ id: repo.repo_id, full_name: `team/${word}` }] });

    // Search across kinds finds the task and the feedback.
    const found = await ok(me, 'search', { query: word });
    expect(found.hits.map((x: any) => `${x.type}:${x.id}`).sort()).toEqual([`feedback:${fb.feedback_id}`, `task:${task.task_id}`].sort());

    // Another user, through the same client: the ids exist but are not theirs to see.
    await notFound(other, 'get_task', { code: task.code });
    await notFound(other, 'get_task', { task_id: task.task_id });
    await notFound(other, 'get_feedback', { feedback_id: fb.feedback_id });
    await notFound(other, 'get_doc', { page_id: draft.page_id });
    await notFound(other, 'list_project_repositories', { project_slug: slug });
    expect((await ok(other, 'list_tasks', { project: slug })).items).toEqual([]);
    expect((await ok(other, 'search_docs', { query: word })).hits).toEqual([]);
    expect((await ok(other, 'search', { query: word })).count).toBe(0);
  });
});
