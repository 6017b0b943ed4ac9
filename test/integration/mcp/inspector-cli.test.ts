// The MCP Inspector's CLI mode (a current, unmodified client) lists and calls tools over
// streamable HTTP with the agent token as a header.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { operator, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';

const run = promisify(execFile);
let h: Harness;
let token: string;
let email: string;

beforeAll(async () => {
  h = await startHarness();
  email = uniqueEmail('insp');
  await operator(h, 'users.create', { email, name: 'Inspector' });
  token = (await operator<{ token: string }>(h, 'agent_tokens.create', { email, scopes: ['read:inbox'] })).token;
});
afterAll(async () => {
  await h?.close();
});

const inspector = (...args: string[]) =>
  run(
    path.resolve('node_modules/.bin/mcp-inspector'),
    ['--cli', `${h.baseUrl}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, ...args],
    { timeout: 60_000 },
  );

it('lists the tools the token may call', async () => {
  const { stdout } = await inspector('--method', 'tools/list');
  const names = (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(['whoami', 'ping', 'list_inbox', 'get_notification']));
  expect(names).not.toContain('mark_notification_read'); // needs write:inbox
}, 90_000);

it('calls whoami', async () => {
  const { stdout } = await inspector('--method', 'tools/call', '--tool-name', 'whoami');
  const result = JSON.parse(stdout) as { content: { text: string }[] };
  expect(JSON.parse(result.content[0]!.text)).toMatchObject({ email, scopes: ['read:inbox'] });
}, 90_000);
