// fluxdesk-send as a child process against a local HTTP server, configured the way a CI job does:
// FLUXDESK_URL and FLUXDESK_TOKEN (or --token-file). Retries run with the test-only
// FLUXDESK_SEND_RETRY_SCALE=0, so no test waits for real.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../index.js';
import { type FakeService, type Reply, startFakeService, validationProblem } from './fake-service.js';

const BIN = fileURLToPath(new URL('../bin/fluxdesk-send.js', import.meta.url));
const TOKEN = 'svc-in-pers-0123456789abcdefghijklmnopqrstuv';

let tmp: string;
let svc: FakeService | undefined;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-send-cli-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI (asynchronously: the fake service answers from this same process). */
function cli(args: string[], opts: { env?: Record<string, string | undefined>; stdin?: string } = {}): Promise<Run> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmp, FLUXDESK_SEND_RETRY_SCALE: '0' };
  if (svc) Object.assign(env, { FLUXDESK_URL: svc.url, FLUXDESK_TOKEN: TOKEN });
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: tmp });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}

async function serve(script: Reply[] = []) {
  svc = await startFakeService(script);
  return svc;
}

const base = ['--id', 'build-4711', '--type', 'personal.ci.build'];

describe('fluxdesk-send: publishing', () => {
  it('maps the flags to the publish body and exits 0 on 202', async () => {
    const s = await serve();
    writeFileSync(path.join(tmp, 'body.md'), '## Failing tests\n\n- a.test.ts\n');
    const r = await cli([
      ...base,
      '--title',
      'Build 4711 failed',
      '--severity',
      'warn',
      '--status',
      'firing',
      '--summary',
      '3 tests failed',
      '--body',
      '@body.md',
      '--url',
      'https://ci.example.com/builds/4711',
      '--label',
      'branch=main',
      '--label',
      'repo=fluxdesk',
      '--action',
      'Open build=https://ci.example.com/builds/4711',
      '--action',
      'Logs=https://ci.example.com/builds/4711/log?x=1',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^delivered build-4711: 202 new \(delivery [0-9a-f-]{36}\)\n$/);
    expect(s.requests).toHaveLength(1);
    const { occurred_at, ...body } = s.requests[0]!.body;
    expect(Date.parse(occurred_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(body).toEqual({
      spec_version: '2',
      event_id: 'build-4711',
      event_type: 'personal.ci.build',
      title: 'Build 4711 failed',
      severity: 'warn',
      external_status: 'firing',
      summary: '3 tests failed',
      markdown_body: '## Failing tests\n\n- a.test.ts\n',
      external_url: 'https://ci.example.com/builds/4711',
      labels: { branch: 'main', repo: 'fluxdesk' },
      actions: [
        { label: 'Open build', action_type: 'url', url: 'https://ci.example.com/builds/4711' },
        { label: 'Logs', action_type: 'url', url: 'https://ci.example.com/builds/4711/log?x=1' },
      ],
    });
    expect(s.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('severity defaults to info; --body takes text, or @- for standard input; "send" may be named', async () => {
    const s = await serve();
    expect((await cli([...base, '--title', 't', '--body', 'plain *text*'])).code).toBe(0);
    expect((await cli(['send', ...base, '--title', 't', '--body', '@-'], { stdin: 'from stdin\n' })).code).toBe(0);
    expect(s.requests.map((q) => [q.body.severity, q.body.markdown_body])).toEqual([
      ['info', 'plain *text*'],
      ['info', 'from stdin\n'],
    ]);
  });

  it('--json prints the outcome, the delivery and every attempt', async () => {
    await serve([{ status: 503 }, { status: 200 }]);
    const r = await cli([...base, '--title', 't', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ outcome: 'delivered', eventId: 'build-4711', status: 200, deduped: true, fireCount: 2 });
    expect(out.attempts.map((a: any) => [a.status, a.waitedMs])).toEqual([
      [503, 0],
      [200, 1000],
    ]);
  });

  it('a 200 (the same id again) is delivered: the existing row is updated', async () => {
    await serve([{ status: 200 }]);
    const r = await cli([...base, '--title', 't']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/delivered build-4711: 200, a repeat of this id: the existing row is updated \(fire count 2/);
  });

  it('a 400 exits 2 at once, printing the problem title and its field errors', async () => {
    const s = await serve([
      { status: 400, body: validationProblem({ event_type: ['must start with "personal."'], title: ['at most 200 characters', 'a single line'] }) },
    ]);
    const r = await cli([...base, '--title', 't']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('fluxdesk-send: refused build-4711: 400 Validation failed');
    expect(r.stderr).toContain('  event_type: must start with "personal."');
    expect(r.stderr).toContain('  title: at most 200 characters\n  title: a single line');
    expect(r.stderr).toContain('request id: req_fake_problem');
    expect(s.requests).toHaveLength(1);
  });

  it('a 400 with --json carries the problem', async () => {
    await serve([{ status: 400, body: validationProblem({ severity: ['bad'] }) }]);
    const r = await cli([...base, '--title', 't', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      outcome: 'refused',
      status: 400,
      problem: { title: 'Validation failed', fieldErrors: { severity: ['bad'] } },
    });
  });

  it('retries 503, 503 and reports the attempts when it got through', async () => {
    const s = await serve([{ status: 503 }, { status: 503 }, { status: 202 }]);
    const r = await cli([...base, '--title', 't']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/delivered build-4711: 202 new .* after 3 attempts/);
    expect(r.stderr).toMatch(/attempt 2: 503 after waiting 1 s/);
    expect(r.stderr).toMatch(/attempt 3: 202 after waiting 5 s/);
    expect(s.requests).toHaveLength(3);
  });

  it('gives up after 4 attempts (exit 3) and keeps the event in --spool DIR', async () => {
    const s = await serve([{ status: 503 }, { drop: true }, { status: 502 }, { status: 503 }]);
    const spool = path.join(tmp, 'spool-giveup');
    const r = await cli([...base, '--title', 't', '--spool', spool]);
    expect(r.code).toBe(3);
    expect(s.requests).toHaveLength(4);
    expect(r.stderr).toContain('gave up on build-4711 after 4 attempts (last: 503 Service Unavailable)');
    expect(r.stderr).toMatch(/attempt 2: network/);
    expect(r.stderr).toContain(`spooled to ${path.join(spool, 'build-4711.json')} (resend: fluxdesk-send flush ${spool})`);
    expect(readdirSync(spool)).toEqual(['build-4711.json']);
    expect(readFileSync(path.join(spool, 'build-4711.json'), 'utf8')).toBe(`${s.requests[0]!.text}\n`);
  });

  it('gives up without --spool: exit 3, and says the event was not kept', async () => {
    await serve([{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }]);
    const r = await cli([...base, '--title', 't', '--json']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'gave_up', reason: 'attempts_exhausted', spooled: null });
  });

  it('reads the token from --token-file (trimmed), in preference to FLUXDESK_TOKEN', async () => {
    const s = await serve();
    const file = path.join(tmp, 'token');
    writeFileSync(file, 'svc-in-pers-fromfile\n', { mode: 0o600 });
    const r = await cli([...base, '--title', 't', '--token-file', file], { env: { FLUXDESK_TOKEN: undefined } });
    expect(r.code).toBe(0);
    expect(s.requests[0]!.headers.authorization).toBe('Bearer svc-in-pers-fromfile');
  });
});

describe('fluxdesk-send flush', () => {
  it('resends the spool: delivered and refused files removed (exit 2 for the refusal), then nothing left (exit 0)', async () => {
    const spool = path.join(tmp, 'spool-flush');
    await serve([{ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }]);
    expect((await cli(['--id', 'a-1', '--type', 'personal.ci.build', '--title', 'a', '--spool', spool])).code).toBe(3);
    expect((await cli(['--id', 'b-2', '--type', 'personal.ci.build', '--title', 'b', '--spool', spool])).code).toBe(3);
    await svc!.close();
    expect(readdirSync(spool).sort()).toEqual(['a-1.json', 'b-2.json']);

    const s = await serve([{ status: 202 }, { status: 400, body: validationProblem({ occurred_at: ['too old'] }) }]);
    const r = await cli(['flush', spool]);
    expect(r.code).toBe(2);
    expect(s.requests.map((q) => q.body.event_id).sort()).toEqual(['a-1', 'b-2']);
    expect(r.stderr).toContain('occurred_at: too old');
    expect(r.stderr).toContain(`flushed ${spool}: 1 delivered, 1 refused, 0 unreadable, 0 still spooled`);
    expect(readdirSync(spool)).toEqual([]);

    const again = await cli(['flush', spool, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ dir: spool, delivered: 0, refused: 0, invalid: 0, kept: 0, items: [] });
  });

  it('keeps what gave up (exit 3) and deletes nothing else', async () => {
    const spool = path.join(tmp, 'spool-keep');
    await serve([{ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }]);
    expect((await cli([...base, '--title', 't', '--spool', spool])).code).toBe(3);
    await svc!.close();
    await serve([{ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }]);
    const r = await cli(['flush', spool, '--json']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ delivered: 0, kept: 1, items: [{ eventId: 'build-4711', outcome: 'gave_up', removed: false }] });
    expect(readdirSync(spool)).toEqual(['build-4711.json']);
  });

  it('a spool directory that does not exist is empty', async () => {
    await serve();
    const r = await cli(['flush', path.join(tmp, 'never-written')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('0 delivered, 0 refused, 0 unreadable, 0 still spooled');
  });
});

describe('fluxdesk-send run', () => {
  it('run -- node -e "process.exit(3)": publishes critical/firing with the exit code, exits 0 as the publish succeeded', async () => {
    const s = await serve();
    const r = await cli(['run', ...base, '--', 'node', '-e', 'process.exit(3)']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^fluxdesk-send: command exited 3 after \d+ (ms|s)\n$/);
    expect(r.stdout).toMatch(/^delivered build-4711: 202 new/);
    const body = s.requests[0]!.body;
    expect(body).toMatchObject({
      event_id: 'build-4711',
      event_type: 'personal.ci.build',
      severity: 'critical',
      external_status: 'firing',
      title: 'node: failed (exit code 3)',
      labels: { exit_code: '3' },
    });
    expect(body.summary).toMatch(/^Exit code 3 after \d/);
    expect(body.labels.duration_s).toMatch(/^\d+\.\d$/);
    // Only the program's name, never its arguments (they may hold secrets).
    expect(JSON.stringify(body)).not.toContain('process.exit');
  });

  it('a success publishes success/resolved; the command output passes through; --title, --summary and labels are kept', async () => {
    const s = await serve();
    const r = await cli([
      'run',
      ...base,
      '--title',
      'Nightly build',
      '--summary',
      'main at abc123',
      '--label',
      'branch=main',
      '--json',
      '--',
      'node',
      '-e',
      'console.log("built")',
    ]);
    expect(r.code).toBe(0);
    const [commandOut, ours] = r.stdout.trimEnd().split('\n');
    expect(commandOut).toBe('built');
    expect(JSON.parse(ours!)).toMatchObject({ outcome: 'delivered', command: { exitCode: 0, signal: null } });
    expect(s.requests[0]!.body).toMatchObject({
      severity: 'success',
      external_status: 'resolved',
      title: 'Nightly build: succeeded',
      labels: { branch: 'main', exit_code: '0' },
    });
    expect(s.requests[0]!.body.summary).toMatch(/^main at abc123 \(exit code 0 after \d/);
  });

  it('the exit code mirrors the publish, not the command: a refused publish of a successful run exits 2', async () => {
    await serve([{ status: 401, body: { title: 'Unauthorized', status: 401, detail: 'token_not_found' } }]);
    const r = await cli(['run', ...base, '--', 'node', '-e', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('command exited 0');
    expect(r.stderr).toContain('refused build-4711: 401 Unauthorized');
  });

  it('a command that cannot start is published as exit code 127', async () => {
    const s = await serve();
    const r = await cli(['run', ...base, '--', path.join(tmp, 'no-such-program')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('command could not start (ENOENT)');
    expect(s.requests[0]!.body).toMatchObject({ severity: 'critical', title: 'no-such-program: could not start (ENOENT)', labels: { exit_code: '127' } });
  });

  it('a usage error stops before the command runs', async () => {
    const marker = path.join(tmp, 'ran');
    const r = await cli(['run', ...base, '--', 'node', '-e', `require("fs").writeFileSync(${JSON.stringify(marker)}, "x")`], {
      env: { FLUXDESK_URL: 'http://127.0.0.1:9', FLUXDESK_TOKEN: undefined },
    });
    expect(r.code).toBe(64);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('fluxdesk-send: usage', () => {
  const title = ['--title', 't'];
  it.each<[string, string[], Record<string, string | undefined>, RegExp]>([
    ['no --id', ['--type', 'personal.x', ...title], {}, /--id is required/],
    ['a bad --id', ['--id', 'a/b', '--type', 'personal.x', ...title], {}, /--id: event_id must be/],
    ['no --type', ['--id', 'a', ...title], {}, /--type is required/],
    ['no --title', ['--id', 'a', '--type', 'personal.x'], {}, /--title is required/],
    ['a --token flag', [...base, ...title, '--token', TOKEN], {}, /there is no --token flag .*FLUXDESK_TOKEN or pass --token-file/],
    ['a --token= flag', [...base, ...title, `--token=${TOKEN}`], {}, /there is no --token flag/],
    ['no FLUXDESK_URL', [...base, ...title], { FLUXDESK_URL: undefined }, /FLUXDESK_URL is not set/],
    ['a bad FLUXDESK_URL', [...base, ...title], { FLUXDESK_URL: 'localhost:8080' }, /FLUXDESK_URL: /],
    ['no token', [...base, ...title], { FLUXDESK_TOKEN: undefined }, /no token: set FLUXDESK_TOKEN or pass --token-file PATH/],
    ['an unreadable --token-file', [...base, ...title, '--token-file', '/nonexistent/token'], {}, /--token-file: .*ENOENT/],
    ['an unknown flag', [...base, ...title, '--frobnicate'], {}, /Unknown option '--frobnicate'/],
    ['a flag given twice', [...base, ...title, '--id', 'other'], {}, /--id given twice/],
    ['a bad --severity', [...base, ...title, '--severity', 'high'], {}, /--severity must be one of critical, warn, info, success/],
    ['a bad --status', [...base, ...title, '--status', 'open'], {}, /--status must be one of firing/],
    ['a --label without =', [...base, ...title, '--label', 'branch'], {}, /--label takes KEY=VALUE/],
    ['an --action without a URL', [...base, ...title, '--action', 'Open='], {}, /--action takes LABEL=URL/],
    ['a bad --timeout', [...base, ...title, '--timeout', '0'], {}, /--timeout takes a number of seconds/],
    ['an unreadable --body file', [...base, ...title, '--body', '@/nonexistent/body.md'], {}, /--body @\/nonexistent\/body.md: .*ENOENT/],
    ['a stray argument', [...base, ...title, 'extra'], {}, /unexpected argument "extra"/],
    ['-- without run', [...base, ...title, '--', 'node'], {}, /"-- COMMAND" belongs to run/],
    ['run without a command', ['run', ...base], {}, /run needs a command after --/],
    ['run with --severity', ['run', ...base, '--severity', 'info', '--', 'node', '-e', '0'], {}, /run sets severity and status from the exit code/],
    ['flush without a directory', ['flush'], {}, /flush takes one directory/],
    ['flush with event flags', ['flush', 'dir', '--id', 'a'], {}, /--id does not apply/],
  ])('%s: exit 64 with a clear message and no request', async (_name, args, env, message) => {
    const s = await serve();
    const r = await cli(args, { env });
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('Run fluxdesk-send --help for usage.');
    expect(r.stdout).toBe('');
    expect(s.requests).toHaveLength(0);
  });

  it('--help and --version', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage:\n {2}fluxdesk-send \[send\] --id ID/);
    expect(help.stdout).toContain('FLUXDESK_TOKEN');
    const version = await cli(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });
});
