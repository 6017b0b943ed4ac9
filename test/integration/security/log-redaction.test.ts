// Tokens never appear in a log line: not from the Authorization header, not from a query string,
// not from error paths.
import { Writable } from 'node:stream';
import type pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../../src/deps.js';
import { event, http, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';

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

it('logs requests without token values', async () => {
  const t = await newPersonalToken(h);
  await publish(h, t.token, event(h));
  await publish(h, t.token, { nonsense: true });
  await http(h, 'GET', `/api/v1/event-types?token=${t.token}`, { token: t.token });
  await http(h, 'POST', '/api/v1/events', { headers: { authorization: `Basic ${t.token}` }, body: event(h) });
  const log = lines.join('');
  expect(log).toContain('incoming request'); // the capture works
  // Each request's lines carry its request id (the per-request logger is built on its first line).
  const requests = lines.map((l) => JSON.parse(l) as { msg?: string; reqId?: string }).filter((l) => l.msg === 'incoming request');
  expect(requests.length).toBeGreaterThanOrEqual(4);
  for (const r of requests) expect(r.reqId).toMatch(/^req_/);
  expect(log).not.toContain(t.token);
  expect(log).not.toContain(t.token.slice(12));
});
