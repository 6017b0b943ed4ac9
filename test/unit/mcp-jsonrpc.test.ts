// The JSON-RPC router on its own (SPEC C "Batch", Limits "Agent batch"): envelope classification,
// one-initialize-per-batch, and the gateway budget with a small budget and no network.
import { describe, expect, it } from 'vitest';
import { classify, parseBody, RPC, RpcError, runMessages, type Envelope } from '../../src/transports/mcp/jsonrpc.js';

const req = (id: number | string, method = 'm', params?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('parseBody', () => {
  it('refuses empty, malformed and non-UTF-8 bodies with -32700', () => {
    for (const b of ['', '   ', '{"a":', 'nope', new Uint8Array([0x7b, 0xff, 0x7d])]) {
      const r = parseBody(b);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe(RPC.PARSE_ERROR);
    }
  });
  it('parses any JSON value', () => {
    expect(parseBody('[1]')).toEqual({ ok: true, value: [1] });
    expect(parseBody(new TextEncoder().encode('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } });
  });
});

describe('classify', () => {
  it('tells requests, notifications and responses apart', () => {
    expect(classify(req(1, 'tools/list'))).toMatchObject({ kind: 'request', id: 1, method: 'tools/list' });
    expect(classify({ jsonrpc: '2.0', method: 'notifications/initialized' })).toMatchObject({ kind: 'notification' });
    expect(classify({ jsonrpc: '2.0', id: 3, result: {} })).toEqual({ kind: 'response' });
  });
  it('refuses malformed envelopes with -32600, keeping a usable id', () => {
    const cases: Array<[unknown, string | number | null]> = [
      [1, null],
      ['x', null],
      [null, null],
      [[], null],
      [{ id: 1, method: 'm' }, 1],
      [{ jsonrpc: '1.0', id: 'a', method: 'm' }, 'a'],
      [{ jsonrpc: '2.0', id: 2 }, 2],
      [{ jsonrpc: '2.0', id: 2, method: 5 }, 2],
      [{ jsonrpc: '2.0', id: null, method: 'm' }, null],
      [{ jsonrpc: '2.0', id: { x: 1 }, method: 'm' }, null],
      [{ jsonrpc: '2.0', id: true, method: 'm' }, null],
    ];
    for (const [m, id] of cases) {
      const e = classify(m) as Extract<Envelope, { kind: 'invalid' }>;
      expect(e.kind, JSON.stringify(m)).toBe('invalid');
      expect(e.error.code).toBe(RPC.INVALID_REQUEST);
      expect(e.id).toBe(id);
    }
  });
  it('params that are not an object are -32602 with data.field', () => {
    for (const params of [[1, 2], 'x', 3, null]) {
      const e = classify({ jsonrpc: '2.0', id: 9, method: 'm', params }) as Extract<Envelope, { kind: 'invalid' }>;
      expect(e.kind).toBe('invalid');
      expect(e.error).toMatchObject({ code: RPC.INVALID_PARAMS, data: { field: 'params' } });
      expect(e.id).toBe(9);
    }
  });
});

describe('runMessages', () => {
  const echo = async (env: Extract<Envelope, { kind: 'request' | 'notification' }>) =>
    env.kind === 'request' ? { response: { jsonrpc: '2.0' as const, id: env.id, result: { method: env.method } }, status: 200, headers: {} } : null;

  it('answers each request in order, none for notifications and responses', async () => {
    const envs = [req(1), { jsonrpc: '2.0', method: 'n' }, req('b'), { jsonrpc: '2.0', id: 7, result: {} }].map(classify);
    const out = await runMessages(envs, echo);
    expect(out.map((o) => o?.response.id ?? null)).toEqual([1, null, 'b', null]);
  });

  it('a second initialize in the batch is -32600 for that member only', async () => {
    const envs = [req(1, 'initialize'), req(2, 'initialize'), req(3, 'ping')].map(classify);
    const out = await runMessages(envs, echo, { oncePerBatch: ['initialize'] });
    expect(out[0]!.response.result).toEqual({ method: 'initialize' });
    expect(out[1]!.response.error?.code).toBe(RPC.INVALID_REQUEST);
    expect(out[2]!.response.result).toEqual({ method: 'ping' });
  });

  it('a failing member fails alone: RpcError keeps its code, anything else is -32603', async () => {
    const envs = [req(1, 'bad'), req(2, 'boom'), req(3, 'ok')].map(classify);
    const seen: unknown[] = [];
    const out = await runMessages(
      envs,
      async (env) => {
        if (env.method === 'bad') throw new RpcError(RPC.INVALID_PARAMS, 'nope', { field: 'x' });
        if (env.method === 'boom') throw new Error('secret detail');
        return echo(env);
      },
      { onUnexpected: (e) => seen.push(e) },
    );
    expect(out[0]!.response.error).toEqual({ code: RPC.INVALID_PARAMS, message: 'nope', data: { field: 'x' } });
    expect(out[1]!.response.error?.code).toBe(RPC.INTERNAL_ERROR);
    expect(JSON.stringify(out[1]!.response)).not.toContain('secret detail');
    expect(out[2]!.response.result).toEqual({ method: 'ok' });
    expect(seen).toHaveLength(1);
  });

  it('the budget: finished members answer; the one running and the rest get "gateway budget exceeded"', async () => {
    const envs = [req(1, 'fast'), req(2, 'slow'), req(3, 'fast'), { jsonrpc: '2.0', method: 'n' }].map(classify);
    const started: string[] = [];
    const t0 = Date.now();
    const out = await runMessages(
      envs,
      async (env) => {
        started.push(`${env.kind === 'request' ? env.id : 'n'}`);
        if (env.method === 'slow') await sleep(1_000);
        return echo(env);
      },
      { budgetMs: 100 },
    );
    expect(Date.now() - t0).toBeLessThan(900);
    expect(out[0]!.response.result).toEqual({ method: 'fast' });
    expect(out[1]!.response.error).toMatchObject({ code: RPC.INTERNAL_ERROR, message: 'gateway budget exceeded', data: { started: true } });
    expect(out[2]!.response.error).toMatchObject({ code: RPC.INTERNAL_ERROR, message: 'gateway budget exceeded', data: { started: false } });
    expect(out[3]).toBeNull();
    expect(started).toEqual(['1', '2']); // nothing starts after the budget is spent
  });
});
