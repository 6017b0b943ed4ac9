// Every JSON-RPC request at /mcp counts once against the agent rate (SPEC Limits "Agent rate": 60
// per minute and 5000 per day per token; agent protocol 3 and 6): tools/call, initialize,
// tools/list, ping and any other request alike, batch members one each; a POST that holds no
// request (only notifications, or a body refused whole) counts once. Time moves with the harness
// clock; nothing sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../helpers/harness.js';
import { call, mcp, newAgent, rpc, type AgentUser, type McpResult } from './rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const init = (id: string | number = 'i') => rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }, id);
const remaining = (r: McpResult) => r.headers.get('x-ratelimit-remaining');

/** What is left of the agent's minute window, read with one counted tools/list. */
async function leftAfterProbe(a: AgentUser): Promise<number> {
  const r = await mcp(h, rpc('tools/list'), { token: a.token });
  expect(r.status, r.text).toBe(200);
  expect(r.headers.get('x-ratelimit-limit')).toBe('60');
  return Number(remaining(r));
}

describe('protocol methods count like tool calls', () => {
  it('tools/list, initialize, ping, server/discover and an unknown method each count once; a tool call after them sees it', async () => {
    const a = await newAgent(h);
    const list = await mcp(h, rpc('tools/list'), { token: a.token });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-ratelimit-limit')).toBe('60');
    expect(remaining(list)).toBe('59');
    expect(Number(list.headers.get('x-ratelimit-reset'))).toBeGreaterThan(h.clock.now().getTime() / 1000);
    expect(remaining(await mcp(h, init(), { token: a.token }))).toBe('58');
    expect(remaining(await mcp(h, rpc('ping'), { token: a.token }))).toBe('57');
    expect(remaining(await mcp(h, rpc('server/discover'), { token: a.token }))).toBe('56');
    const unknown = await mcp(h, rpc('resources/list'), { token: a.token });
    expect(unknown.body.error.code).toBe(-32601);
    expect(remaining(unknown)).toBe('55');
    const who = await mcp(h, call('whoami'), { token: a.token });
    expect(who.body.result.isError).toBe(false);
    expect(remaining(who)).toBe('54');
  });

  it('the 61st tools/list in a minute is refused with -32005, HTTP 429 and Retry-After', async () => {
    const a = await newAgent(h);
    for (let i = 0; i < 60; i++) {
      const r = await mcp(h, rpc('tools/list', undefined, i), { token: a.token });
      expect(r.status).toBe(200);
      expect(remaining(r)).toBe(String(59 - i));
    }
    const over = await mcp(h, rpc('tools/list', undefined, 'x'), { token: a.token });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ jsonrpc: '2.0', id: 'x', error: { code: -32005, data: { type: 'TOO_MANY_REQUESTS' } } });
    expect(over.body.result).toBeUndefined();
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(over.headers.get('x-ratelimit-limit')).toBe('60');
    expect(remaining(over)).toBe('0');
    // The tools a tool call needs are refused alike, and a refused call uses up nothing.
    expect((await mcp(h, call('whoami', {}, 'w'), { token: a.token })).body.error.code).toBe(-32005);
    expect((await mcp(h, init('j'), { token: a.token })).status).toBe(429);

    h.clock.advance(60_001);
    expect(await leftAfterProbe(a)).toBe(59);
  });
});

describe('batches count per member', () => {
  it('a batch of initialize, tools/list, ping and a tool call counts four', async () => {
    const a = await newAgent(h);
    const r = await mcp(h, [init(1), rpc('tools/list', undefined, 2), rpc('ping', undefined, 3), call('whoami', {}, 4)], { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body.map((m: any) => [m.id, m.error])).toEqual([
      [1, undefined],
      [2, undefined],
      [3, undefined],
      [4, undefined],
    ]);
    expect(remaining(r)).toBe('56');
    expect(await leftAfterProbe(a)).toBe(55);
  });

  it('members past the limit fail for themselves with -32005; the earlier members run', async () => {
    const a = await newAgent(h);
    for (let i = 0; i < 3; i++) {
      const r = await mcp(
        h,
        Array.from({ length: 19 }, (_, j) => rpc('tools/list', undefined, j)),
        { token: a.token },
      );
      expect(r.body.every((m: any) => m.result !== undefined)).toBe(true);
    }
    // 57 used: of these five, three run and two are refused.
    const r = await mcp(
      h,
      [rpc('tools/list', undefined, 'a'), rpc('ping', undefined, 'b'), init('c'), rpc('tools/list', undefined, 'd'), call('whoami', {}, 'e')],
      { token: a.token },
    );
    expect(r.status).toBe(200);
    expect(r.body.map((m: any) => [m.id, m.error?.code ?? 'ok'])).toEqual([
      ['a', 'ok'],
      ['b', 'ok'],
      ['c', 'ok'],
      ['d', -32005],
      ['e', -32005],
    ]);
    expect(r.headers.get('retry-after')).not.toBeNull();
  });

  it('a tools/call that names no tool, or lacks a scope, counts once like any other request', async () => {
    const a = await newAgent(h, ['read:inbox']);
    const unknown = await mcp(h, call('no_such_tool', {}, 'u'), { token: a.token });
    expect(unknown.body.error.code).toBe(-32602);
    expect(remaining(unknown)).toBe('59');
    const scope = await mcp(h, call('list_tasks', {}, 's'), { token: a.token });
    expect(scope.body.error.code).toBe(-32003);
    expect(remaining(scope)).toBe('58');
    const badArgs = await mcp(h, call('list_inbox', { limit: 'many' }, 'b'), { token: a.token });
    expect(badArgs.body.error.code).toBe(-32602);
    expect(remaining(badArgs)).toBe('57');
    expect(await leftAfterProbe(a)).toBe(56);
  });
});

describe('POSTs without a request', () => {
  it('notifications are not counted one by one; a POST of only notifications counts once', async () => {
    const a = await newAgent(h);
    const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const alone = await mcp(h, note, { token: a.token });
    expect(alone.status).toBe(202);
    expect(remaining(alone)).toBe('59');
    expect(await leftAfterProbe(a)).toBe(58);
    const several = await mcp(h, [note, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }], { token: a.token });
    expect(several.status).toBe(202);
    expect(await leftAfterProbe(a)).toBe(56);
    // Next to a request, a notification adds nothing.
    const mixed = await mcp(h, [note, rpc('ping', undefined, 'p')], { token: a.token });
    expect(mixed.body).toEqual([{ jsonrpc: '2.0', id: 'p', result: {} }]);
    expect(await leftAfterProbe(a)).toBe(54);
  });

  it('a body refused whole (malformed JSON, oversized batch) counts once and reports the budget', async () => {
    const a = await newAgent(h);
    const bad = await mcp(h, undefined, { token: a.token, raw: '{"jsonrpc": "2.0", ' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe(-32700);
    expect(remaining(bad)).toBe('59');
    const big = await mcp(
      h,
      Array.from({ length: 21 }, (_, i) => rpc('ping', undefined, i)),
      { token: a.token },
    );
    expect(big.status).toBe(400);
    expect(big.body.error.code).toBe(-32600);
    expect(remaining(big)).toBe('58');
    expect(await leftAfterProbe(a)).toBe(57);
  });

  it('past the limit such a POST is refused with -32005 and HTTP 429', async () => {
    const a = await newAgent(h);
    for (let i = 0; i < 3; i++)
      await mcp(
        h,
        Array.from({ length: 20 }, (_, j) => rpc('ping', undefined, j)),
        { token: a.token },
      );
    const note = await mcp(h, { jsonrpc: '2.0', method: 'notifications/initialized' }, { token: a.token });
    expect(note.status).toBe(429);
    expect(note.body).toMatchObject({ id: null, error: { code: -32005 } });
    expect(Number(note.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const bad = await mcp(h, undefined, { token: a.token, raw: 'not json' });
    expect(bad.status).toBe(429);
    expect(bad.body.error.code).toBe(-32005);
  });
});

describe('the day window counts protocol methods too', () => {
  it('5000 per day: requests of earlier minutes still count against the day', async () => {
    const a = await newAgent(h);
    const day = `rl:{tok:${a.tokenId}}:day`;
    const count = async () => Number(await h.svc.deps.redis!.zcard(day));
    expect(await leftAfterProbe(a)).toBe(59);
    await mcp(h, [init(1), rpc('ping', undefined, 2)], { token: a.token });
    expect(await count()).toBe(3);
  });
});

describe('the agent protocol text documents it', () => {
  it('says every request counts, protocol methods included', async () => {
    const text = await (await fetch(`${h.baseUrl}/api/internal-os/agent/protocol`)).text();
    expect(text).toContain('60 requests per minute and 5000 per day per token');
    expect(text).toContain('Every JSON-RPC request counts once, whatever its method (`tools/call`, `initialize`, `tools/list`, `ping`');
    expect(text).toContain('a POST that holds no request (only notifications, or a body refused whole');
  });
});
