// The retry policy of createSender against a local HTTP server (docs/contract.md "Recommended
// sender behaviour"): 2xx stop; 4xx except 429 never retried; 429 waits Retry-After seconds; 5xx or
// a network error retried after 1 s, 5 s, 30 s; at most 4 attempts, then the dead letter. Waits go
// through an injected sleep, so no test waits for real.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSender, EVENT_ID_PATTERN, type InboundEvent, MAX_ATTEMPTS, RETRY_DELAYS_MS, VERSION } from '../index.js';
import { type FakeService, recordingSleep, type Reply, startFakeService, validationProblem } from './fake-service.js';

const TOKEN = 'svc-in-pers-0123456789abcdefghijklmnopqrstuv';
let svc: FakeService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

function ev(over: Partial<InboundEvent> = {}): InboundEvent {
  return { event_id: 'build-4711', event_type: 'personal.ci.build', severity: 'warn', title: 'Build 4711 failed', ...over };
}

async function senderFor(script: Reply[], opts: { timeoutMs?: number; onDeadLetter?: (e: InboundEvent, r: unknown) => void } = {}) {
  svc = await startFakeService(script);
  const { sleep, waits } = recordingSleep();
  const sender = createSender({ url: svc.url, token: TOKEN, sleep, ...opts });
  return { sender, waits, svc };
}

describe('createSender: the retry policy', () => {
  it('retries 503, 503 after 1 s and 5 s, then stops at the 202 with every attempt reported', async () => {
    const { sender, waits, svc } = await senderFor([{ status: 503 }, { status: 503 }, { status: 202 }]);
    const r = await sender.send(ev());
    expect(r.outcome).toBe('delivered');
    expect(r.status).toBe(202);
    expect(r.delivery?.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(waits).toEqual([1000, 5000]);
    expect(r.attempts.map((a) => [a.attempt, a.status, a.waitedMs])).toEqual([
      [1, 503, 0],
      [2, 503, 1000],
      [3, 202, 5000],
    ]);
    for (const a of r.attempts) {
      expect(a.durationMs).toBeGreaterThanOrEqual(0);
      expect(a.requestId).toMatch(/^req_fake_/);
    }
    // The same bytes every time: a retry is a true repeat of the event (dedup key event_id).
    expect(svc.requests).toHaveLength(3);
    expect(new Set(svc.requests.map((q) => q.text)).size).toBe(1);
    const q = svc.requests[0]!;
    expect(q.method).toBe('POST');
    expect(q.url).toBe('/api/v1/events');
    expect(q.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(q.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(q.headers['content-length']).toBe(String(Buffer.byteLength(q.text)));
    expect(q.headers['user-agent']).toBe(`fluxdesk-sender/${VERSION}`);
    expect(q.body).toMatchObject({ spec_version: '2', event_id: 'build-4711', event_type: 'personal.ci.build', severity: 'warn' });
  });

  it('waits the Retry-After of a 429 (2 s) before the next attempt', async () => {
    const { sender, waits } = await senderFor([{ status: 429, headers: { 'retry-after': '2' } }, { status: 202 }]);
    const r = await sender.send(ev());
    expect(r.outcome).toBe('delivered');
    expect(waits).toEqual([2000]);
    expect(r.attempts[0]).toMatchObject({ status: 429, retryAfterMs: 2000, waitedMs: 0 });
    expect(r.attempts[1]).toMatchObject({ status: 202, waitedMs: 2000 });
  });

  it('a 429 without Retry-After waits the backoff step', async () => {
    const { sender, waits } = await senderFor([{ status: 429 }, { status: 429 }, { status: 202 }]);
    expect((await sender.send(ev())).outcome).toBe('delivered');
    expect(waits).toEqual([1000, 5000]);
  });

  it('a 429 asking for longer than maxRetryAfterMs gives up at once into the dead letter', async () => {
    const dead = vi.fn();
    svc = await startFakeService([{ status: 429, headers: { 'retry-after': '3600' } }]);
    const { sleep, waits } = recordingSleep();
    const r = await createSender({ url: svc.url, token: TOKEN, sleep, onDeadLetter: dead }).send(ev());
    expect(r).toMatchObject({ outcome: 'gave_up', reason: 'retry_after_too_long', status: 429 });
    expect(r.attempts).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(dead).toHaveBeenCalledOnce();
  });

  it('a 400 is refused at once: no retry, the problem+json body at hand', async () => {
    const problem = validationProblem({ event_type: ['must start with "personal."'] });
    const { sender, waits, svc } = await senderFor([{ status: 400, body: problem }]);
    const r = await sender.send(ev());
    expect(r.outcome).toBe('refused');
    expect(r.status).toBe(400);
    expect(r.problem).toMatchObject({ title: 'Validation failed', fieldErrors: { event_type: ['must start with "personal."'] } });
    expect(svc.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it.each([401, 403, 409, 413, 422])('a %i is never retried', async (status) => {
    const dead = vi.fn();
    const { sender, svc } = await senderFor([{ status, body: { title: `status ${status}`, status } }], { onDeadLetter: dead });
    const r = await sender.send(ev());
    expect(r).toMatchObject({ outcome: 'refused', status, problem: { title: `status ${status}` } });
    expect(svc.requests).toHaveLength(1);
    expect(dead).not.toHaveBeenCalled();
  });

  it('a non-JSON error body still gives a problem with a title', async () => {
    const { sender } = await senderFor([{ status: 404, body: 'Not Found\n<html>…' }]);
    const r = await sender.send(ev());
    expect(r.problem).toEqual({ status: 404, title: 'Not Found' });
  });

  it('retries a dropped connection (the server destroys the socket)', async () => {
    const { sender, waits, svc } = await senderFor([{ drop: true }, { status: 202 }]);
    const r = await sender.send(ev());
    expect(r.outcome).toBe('delivered');
    expect(r.attempts[0]).toMatchObject({ attempt: 1, error: 'network' });
    expect(r.attempts[0]!.status).toBeUndefined();
    expect(r.attempts[0]!.errorDetail).toBeTruthy();
    expect(waits).toEqual([1000]);
    expect(svc.requests).toHaveLength(2);
  });

  it('retries a refused connection (nothing listening)', async () => {
    svc = await startFakeService();
    const url = svc.url;
    await svc.close();
    svc = undefined;
    const { sleep, waits } = recordingSleep();
    const r = await createSender({ url, token: TOKEN, sleep }).send(ev());
    expect(r.outcome).toBe('gave_up');
    expect(r.attempts.map((a) => a.error)).toEqual(['network', 'network', 'network', 'network']);
    expect(r.attempts[0]!.errorDetail).toBe('ECONNREFUSED');
    expect(waits).toEqual([1000, 5000, 30000]);
  });

  it('an attempt without an answer within timeoutMs is a timeout, and is retried', async () => {
    const { sender, svc } = await senderFor([{ hang: true }, { status: 200 }], { timeoutMs: 150 });
    const r = await sender.send(ev());
    expect(r.outcome).toBe('delivered');
    expect(r.status).toBe(200);
    expect(r.attempts[0]).toMatchObject({ error: 'timeout' });
    expect(r.attempts[0]!.durationMs).toBeGreaterThanOrEqual(100);
    expect(svc.requests).toHaveLength(2);
  });

  it('at most 4 attempts, then the dead letter callback with the event and the result', async () => {
    const dead = vi.fn();
    const { sender, waits, svc } = await senderFor([{ status: 503 }, { status: 500 }, { drop: true }, { status: 502 }, { status: 202 }], {
      onDeadLetter: dead,
    });
    const r = await sender.send(ev());
    expect(MAX_ATTEMPTS).toBe(4);
    expect(r).toMatchObject({ outcome: 'gave_up', reason: 'attempts_exhausted', status: 502 });
    expect(r.attempts.map((a) => a.status ?? a.error)).toEqual([503, 500, 'network', 502]);
    expect(waits).toEqual([1000, 5000, 30000]);
    expect(svc.requests).toHaveLength(4);
    expect(dead).toHaveBeenCalledOnce();
    const [deadEvent, deadResult] = dead.mock.calls[0]!;
    expect(deadEvent).toMatchObject({ event_id: 'build-4711', spec_version: '2' });
    expect(deadResult).toBe(r);
  });

  it('the contract backoff is 1 s, 5 s, 30 s, 2 min', () => {
    expect(RETRY_DELAYS_MS).toEqual([1000, 5000, 30000, 120000]);
  });

  it('a 200 (a repeat of the event_id) is delivered too', async () => {
    const { sender } = await senderFor([{ status: 200 }]);
    const r = await sender.send(ev());
    expect(r).toMatchObject({ outcome: 'delivered', status: 200, delivery: { deduped: true, fireCount: 2 } });
  });
});

describe('createSender: the event and the address', () => {
  it('refuses an event without event_id locally, sending nothing', async () => {
    const { sender, svc } = await senderFor([]);
    const { event_id: _omit, ...noId } = ev();
    await expect(sender.send(noId as InboundEvent)).rejects.toThrow(/event_id is required/);
    await expect(sender.send(ev({ event_id: '' }))).rejects.toThrow(TypeError);
    await expect(sender.send(ev({ event_id: 'has space' }))).rejects.toThrow(/event_id must be/);
    await expect(sender.send(ev({ event_id: 'x'.repeat(121) }))).rejects.toThrow(/event_id must be/);
    expect(svc.requests).toHaveLength(0);
    expect(EVENT_ID_PATTERN.test('x'.repeat(120))).toBe(true);
  });

  it('fills spec_version and occurred_at, and keeps the ones given', async () => {
    const { sender, svc } = await senderFor([]);
    const before = Date.now();
    await sender.send(ev());
    const at = Date.parse(svc.requests[0]!.body.occurred_at);
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(Date.now() + 1);
    await sender.send(ev({ occurred_at: '2026-11-28T10:00:00+01:00' }));
    expect(svc.requests[1]!.body).toMatchObject({ spec_version: '2', occurred_at: '2026-11-28T10:00:00+01:00' });
  });

  it('takes a base address with or without a trailing slash or path, or the publish URL itself', async () => {
    svc = await startFakeService();
    for (const url of [svc.url, `${svc.url}/`, `${svc.url}/api/v1/events`]) await createSender({ url, token: TOKEN }).send(ev());
    expect(svc.requests.map((q) => q.url)).toEqual(['/api/v1/events', '/api/v1/events', '/api/v1/events']);
  });

  it('refuses a bad address or a missing token when created', () => {
    expect(() => createSender({ url: 'not a url', token: TOKEN })).toThrow(/not a URL/);
    expect(() => createSender({ url: 'ftp://x.example', token: TOKEN })).toThrow(/http/);
    expect(() => createSender({ url: 'https://x.example/?token=1', token: TOKEN })).toThrow(/no query/);
    expect(() => createSender({ url: 'https://x.example', token: '' })).toThrow(/token/);
  });

  it('uses an injected fetch', async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({ deliveryId: 'd-1' }), { status: 202 }));
    const r = await createSender({ url: 'https://fluxdesk.example', token: TOKEN, fetch }).send(ev());
    expect(r).toMatchObject({ outcome: 'delivered', delivery: { deliveryId: 'd-1' } });
    expect(fetch).toHaveBeenCalledWith('https://fluxdesk.example/api/v1/events', expect.objectContaining({ method: 'POST', redirect: 'manual' }));
  });

  it("the user agent's version is the package's", () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(VERSION).toBe(pkg.version);
    expect(pkg.dependencies ?? {}).toEqual({});
  });
});
