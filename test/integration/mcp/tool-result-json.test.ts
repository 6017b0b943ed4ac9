// A tool call's answer is serialized once (methods.ts toolResultJson): its text block and its
// structured content come from one JSON.stringify of the output. These tests hold it to what
// JSON.stringify of the response object gives (the canonical text: parse then stringify returns
// it unchanged), on a lone call, in a batch and over an event stream, with string and number ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { call, mcp, newAgent, rpc } from './rpc.js';

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness();
  const pt = await newPersonalToken(h);
  for (let i = 0; i < 3; i++) {
    h.clock.advance(1_000);
    const r = await publish(h, pt.token, event(h, { title: `Quote " and \\ backslash, é and 😀 ${i}`, summary: 'line\nbreak' }));
    expect(r.status, r.text).toBe(202);
  }
  token = (await newAgent(h, ['read:inbox'], pt.user)).token;
});
afterAll(async () => {
  await h?.close();
});

/** The text is exactly what JSON.stringify makes of what it says. */
const canonical = (text: string) => expect(JSON.stringify(JSON.parse(text))).toBe(text);

describe('a tool result serialized once', () => {
  it.each([['ids-are-strings'], [42]])('a lone call (id %s): canonical JSON, the structured content is the text block', async (id) => {
    const r = await mcp(h, call('list_inbox', { limit: 3 }, id), { token, headers: { accept: 'application/json' } });
    expect(r.status).toBe(200);
    canonical(r.text);
    const body = r.body as any;
    expect(body).toMatchObject({ jsonrpc: '2.0', id, result: { isError: false } });
    expect(body.result.structuredContent.items).toHaveLength(3);
    expect(JSON.parse(body.result.content[0].text)).toEqual(body.result.structuredContent);
    expect(body.result.structuredContent.items[0].title).toBe('Quote " and \\ backslash, é and 😀 2');
    // Key for key what JSON.stringify of the response object gives.
    expect(r.text).toBe(
      JSON.stringify({ jsonrpc: '2.0', id, result: { content: body.result.content, isError: false, structuredContent: body.result.structuredContent } }),
    );
  });

  it('a batch: each member canonical and in order, beside a member answered by another method', async () => {
    const r = await mcp(h, [call('list_inbox', { limit: 1 }, 'a'), rpc('ping', undefined, 'b'), call('list_inbox', { limit: 2 }, 'c')], {
      token,
      headers: { accept: 'application/json' },
    });
    expect(r.status).toBe(200);
    canonical(r.text);
    const members = r.body as any[];
    expect(members.map((m) => m.id)).toEqual(['a', 'b', 'c']);
    expect(members[0].result.structuredContent.items).toHaveLength(1);
    expect(members[2].result.structuredContent.items).toHaveLength(2);
  });

  it('over an event stream: one message event, its data the same canonical JSON', async () => {
    const r = await mcp(h, call('list_inbox', { limit: 2 }, 'sse'), { token, headers: { accept: 'text/event-stream' } });
    expect(r.status).toBe(200);
    const events = r.text.split('\n\n').filter(Boolean);
    expect(events).toHaveLength(1);
    const data = events[0]!.replace(/^event: message\ndata: /, '');
    expect(data).not.toContain('\n');
    canonical(data);
    expect(JSON.parse(data).result.structuredContent.items).toHaveLength(2);
  });
});
