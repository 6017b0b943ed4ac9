// The spool: one `<event_id>.json` per undelivered event, written atomically; flushSpool resends
// them, removing delivered and refused files and keeping the ones that gave up.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSender, flushSpool, type InboundEvent, writeSpoolFile } from '../index.js';
import { type FakeService, recordingSleep, type Reply, startFakeService, validationProblem } from './fake-service.js';

const TOKEN = 'svc-in-pers-0123456789abcdefghijklmnopqrstuv';
let dir: string;
let svc: FakeService | undefined;
beforeEach(() => {
  dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'fluxdesk-spool-')), 'spool');
});
afterEach(async () => {
  await svc?.close();
  svc = undefined;
  rmSync(path.dirname(dir), { recursive: true, force: true });
});

const ev = (id: string, over: Partial<InboundEvent> = {}): InboundEvent => ({
  spec_version: '2',
  event_id: id,
  event_type: 'personal.ci.build',
  severity: 'critical',
  title: `Build ${id} failed`,
  occurred_at: '2026-11-28T10:00:00Z',
  ...over,
});

/** Spools the events with mtimes one second apart, the first oldest. */
async function spoolInOrder(...events: InboundEvent[]) {
  const base = Date.now() / 1000 - 100;
  for (const [i, e] of events.entries()) {
    const file = await writeSpoolFile(dir, e);
    utimesSync(file, base + i, base + i);
  }
}

async function flushAgainst(script: Reply[]) {
  svc = await startFakeService(script);
  const { sleep, waits } = recordingSleep();
  const result = await flushSpool(dir, createSender({ url: svc.url, token: TOKEN, sleep }));
  return { result, waits, svc };
}

describe('writeSpoolFile', () => {
  it('writes the request body as <event_id>.json, creating the directory, leaving no temporary file', async () => {
    const e = ev('build-1');
    const file = await writeSpoolFile(dir, e);
    expect(file).toBe(path.join(dir, 'build-1.json'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(e);
    expect(readdirSync(dir)).toEqual(['build-1.json']);
  });

  it('a later event with the same id replaces the file', async () => {
    await writeSpoolFile(dir, ev('build-1', { title: 'first' }));
    await writeSpoolFile(dir, ev('build-1', { title: 'second' }));
    expect(readdirSync(dir)).toEqual(['build-1.json']);
    expect(JSON.parse(readFileSync(path.join(dir, 'build-1.json'), 'utf8')).title).toBe('second');
  });

  it('refuses an event whose id cannot be a file name', async () => {
    await expect(writeSpoolFile(dir, ev('../escape'))).rejects.toThrow(/event_id/);
    await expect(writeSpoolFile(dir, ev(''))).rejects.toThrow(/event_id/);
  });
});

describe('flushSpool', () => {
  it('resends oldest first; removes delivered and refused files; keeps a file that is not an event', async () => {
    await spoolInOrder(ev('a-1'), ev('b-2'), ev('c-3'));
    writeFileSync(path.join(dir, 'broken.json'), '{not json');
    writeFileSync(path.join(dir, '.c-3.123.abcd.tmp'), 'half a write');
    writeFileSync(path.join(dir, 'notes.txt'), 'not a spool file');
    const { result, svc } = await flushAgainst([
      { status: 202 },
      { status: 400, body: validationProblem({ occurred_at: ['must be later than now minus 24 h'] }) },
      { status: 200 },
    ]);
    expect(svc.requests.map((q) => q.body.event_id)).toEqual(['a-1', 'b-2', 'c-3']);
    // The spooled body is sent as it is.
    expect(svc.requests[0]!.body).toEqual(ev('a-1'));
    const byName = Object.fromEntries(result.items.map((i) => [path.basename(i.file), [i.outcome, i.removed]]));
    expect(byName).toEqual({
      'a-1.json': ['delivered', true],
      'b-2.json': ['refused', true],
      'c-3.json': ['delivered', true],
      'broken.json': ['invalid', false],
    });
    expect(readdirSync(dir).sort()).toEqual(['.c-3.123.abcd.tmp', 'broken.json', 'notes.txt']);
  });

  it('keeps the file that gave up and skips the rest, without each waiting out its own backoff', async () => {
    await spoolInOrder(ev('a-1'), ev('b-2'), ev('c-3'));
    const { result, waits, svc } = await flushAgainst([{ status: 202 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }]);
    expect(result.items.map((i) => [i.eventId, i.outcome, i.removed])).toEqual([
      ['a-1', 'delivered', true],
      ['b-2', 'gave_up', false],
      ['c-3', 'skipped', false],
    ]);
    expect(svc.requests).toHaveLength(5);
    expect(waits).toEqual([1000, 5000, 30000]);
    expect(readdirSync(dir).sort()).toEqual(['b-2.json', 'c-3.json']);
  });

  it('an empty spool is nothing to do', async () => {
    await spoolInOrder();
    const { result } = await flushAgainst([]);
    expect(result.items).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });
});
