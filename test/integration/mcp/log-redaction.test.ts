// Agent tokens never appear in a log line, on success or on any error path of POST /mcp.
import { Writable } from 'node:stream';
import type pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../../src/deps.js';
import { startHarness, type Harness } from '../../helpers/harness.js';
import { call, mcp, newAgent, rpc } from './rpc.js';

let h: Harness;
const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, cb) {
    lines.push(String(chunk));
    cb();
  },
});

beforeAll(async () => {
  h = await startHarness({ logger: createLogger('trace', 1, sink as unknown as pino.DestinationStream) });
});
afterAll(async () => {
  await h?.close();
});

it('logs /mcp requests without token values', async () => {
  const a = await newAgent(h, ['read:inbox']);
  await mcp(h, [rpc('initialize', { protocolVersion: '2025-11-25' }), call('whoami'), call('list_inbox', { limit: 'x' })], { token: a.token });
  await mcp(h, call('mark_all_notifications_read'), { token: a.token });
  await mcp(h, undefined, { token: a.token, raw: '{broken' });
  await mcp(h, rpc('tools/list'), { headers: { authorization: `Basic ${a.token}` } });
  await fetch(`${h.baseUrl}/mcp?access_token=${a.token}`, { method: 'POST', body: '{}' });
  const log = lines.join('');
  expect(log).toContain('incoming request'); // the capture works
  expect(log).not.toContain(a.token);
  expect(log).not.toContain(a.token.slice(7));
});
