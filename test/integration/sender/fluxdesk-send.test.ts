// clients/sender's fluxdesk-send CLI against the real service: what it publishes lands in the token
// owner's inbox and reads back; a re-run under the same id is the contract's repeat (200, deduped,
// the same row updated); refusals exit 2 with the service's problem title and field errors.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, newPersonalToken, startHarness, type Harness } from '../../helpers/harness.js';

const BIN = fileURLToPath(new URL('../../../clients/sender/bin/fluxdesk-send.js', import.meta.url));

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** Runs the CLI as a CI job would, asynchronously (the service answers from this process). */
function send(token: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', FLUXDESK_URL: h.baseUrl, FLUXDESK_TOKEN: token };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function inboxRows(deliveryId: string) {
  return h.svc.deps.orm.em.getConnection().execute(`select user_id, title from notifications where delivery_id = ?`, [deliveryId]);
}

describe('fluxdesk-send against the service', () => {
  it('publishes into the owner inbox; a run under the same id updates the same row (200, deduped)', async () => {
    const t = await newPersonalToken(h);
    const id = `nightly-${Date.now().toString(36)}`;
    const first = await send(t.token, [
      '--id',
      id,
      '--type',
      'personal.ci.nightly',
      '--title',
      'Nightly build started',
      '--severity',
      'info',
      '--status',
      'pending',
      '--summary',
      'main at abc123',
      '--url',
      'https://ci.example.com/nightly/1',
      '--label',
      'branch=main',
      '--action',
      'Open=https://ci.example.com/nightly/1',
      '--json',
    ]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const published = JSON.parse(first.stdout);
    expect(published).toMatchObject({ outcome: 'delivered', status: 202, deduped: false, fireCount: 1 });
    expect(await inboxRows(published.deliveryId)).toEqual([{ user_id: t.user.userId, title: 'Nightly build started' }]);
    const read = await http(h, 'GET', `/api/v1/events/${published.deliveryId}`, { token: t.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      eventType: 'personal.ci.nightly',
      severity: 'info',
      title: 'Nightly build started',
      summary: 'main at abc123',
      externalUrl: 'https://ci.example.com/nightly/1',
      externalStatus: 'pending',
      fireCount: 1,
      recipientUserId: t.user.userId,
    });

    const rerun = await send(t.token, [
      'run',
      '--id',
      id,
      '--type',
      'personal.ci.nightly',
      '--title',
      'Nightly build',
      '--json',
      '--',
      'node',
      '-e',
      'process.exit(3)',
    ]);
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({
      outcome: 'delivered',
      status: 200,
      deliveryId: published.deliveryId,
      deduped: true,
      fireCount: 2,
      command: { exitCode: 3 },
    });
    // The contract's repeat: the same row, its title and status updated, no second inbox row.
    expect(await inboxRows(published.deliveryId)).toEqual([{ user_id: t.user.userId, title: 'Nightly build: failed (exit code 3)' }]);
    const again = await http(h, 'GET', `/api/v1/events/${published.deliveryId}`, { token: t.token });
    expect(again.body).toMatchObject({ externalStatus: 'firing', fireCount: 2 });

    const fixed = await send(t.token, ['run', '--id', id, '--type', 'personal.ci.nightly', '--title', 'Nightly build', '--', 'node', '-e', '0']);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/^delivered .*: 200, a repeat of this id/);
    expect((await http(h, 'GET', `/api/v1/events/${published.deliveryId}`, { token: t.token })).body).toMatchObject({
      externalStatus: 'resolved',
      fireCount: 3,
    });
    expect(await inboxRows(published.deliveryId)).toEqual([{ user_id: t.user.userId, title: 'Nightly build: succeeded' }]);
  });

  it("an event type outside the token's prefix is refused: exit 2, the problem title and the field error printed, no retry", async () => {
    const t = await newPersonalToken(h);
    const r = await send(t.token, ['--id', 'wrong-prefix-1', '--type', 'other.ci.build', '--title', 'x']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^fluxdesk-send: refused wrong-prefix-1: 4\d\d \S/);
    expect(r.stderr).toMatch(/\n {2}event_type: .*personal\./);
    expect(r.stderr).toMatch(/request id: req_/);
  });

  it('an unknown token is refused with 401 (never retried)', async () => {
    const r = await send('svc-in-pers-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', ['--id', 'unknown-token-1', '--type', 'personal.ci.build', '--title', 'x', '--json']);
    expect(r.code).toBe(2);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ outcome: 'refused', status: 401 });
    expect(out.attempts).toHaveLength(1);
    expect(out.problem.title).toBeTruthy();
  });
});
