// The protocol's own conformance suite (@modelcontextprotocol/conformance) against the real server.
// Its runner cannot send a bearer token, so a local proxy adds this test's agent token; Host and
// Origin pass through untouched (the DNS-rebinding scenario depends on them). Scenarios that need
// the suite's demo tools, prompts, resources, sampling or logging do not apply to this server.
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { operator, startHarness, uniqueEmail, type Harness } from '../../helpers/harness.js';

const run = promisify(execFile);
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let h: Harness;
let proxy: http.Server;
let proxyUrl: string;

beforeAll(async () => {
  h = await startHarness();
  const email = uniqueEmail('conf');
  await operator(h, 'users.create', { email, name: 'Conformance' });
  const { token } = await operator<{ token: string }>(h, 'agent_tokens.create', { email });
  const target = new URL(h.baseUrl);
  proxy = http.createServer((req, res) => {
    const up = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await h?.close();
});

it.each(SCENARIOS)(
  'conformance scenario %s passes',
  async (scenario) => {
    const bin = path.resolve('node_modules/.bin/conformance');
    const { stdout } = await run(bin, ['server', '--url', proxyUrl, '--scenario', scenario], { timeout: 60_000 }).catch(
      (e: { stdout?: string; stderr?: string }) => ({ stdout: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
    const clean = stdout.replace(/\u001b\[[0-9;]*m/g, '');
    expect(clean, clean).toMatch(/Passed: (\d+)\/\1, 0 failed/);
  },
  90_000,
);
