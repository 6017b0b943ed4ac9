// list_inbox writes its page's JSON text by hand (transports/mcp/json-text.ts): it must be exactly
// JSON.stringify's text of the output (key for key), and its escaped form exactly what
// JSON.stringify of that text puts between its quotes, whatever the strings hold.
import { describe, expect, it } from 'vitest';
import type { ListInboxResult } from '../../src/domain/inbox/list-inbox.js';
import type { BriefItemRow } from '../../src/domain/inbox/inbox-view.repository.js';
import { toInboxItem } from '../../src/domain/inbox/notification.view.js';
import { JsonTextWriter } from '../../src/transports/mcp/json-text.js';
import { listInboxText } from '../../src/transports/mcp/tools/list-inbox.js';

const ID = '0b9c6f1e-3a51-4c1e-9f55-0a8c2f6e7d11';
const TEXTS = [
  'plain',
  '',
  'Quote " and \\ backslash',
  'line\nbreak\ttab\r\u0000\u001f\u007f',
  'é, 😀 and 中文',
  'lone \ud800 high and \udc00 low surrogates',
  '\u2028\u2029 separators',
  '</script>',
];

function row(i: number, over: Partial<BriefItemRow> = {}): BriefItemRow {
  const text = TEXTS[i % TEXTS.length]!;
  return {
    id: ID,
    type: 'system',
    title: `${text} ${i}`,
    summary: i % 2 ? text : null,
    read_at: i % 3 ? null : '2026-11-22 11:17:12.103456+00',
    created_at: '2026-11-22 11:17:12.1+00',
    target_url: i % 4 ? null : `/inbox/${text}`,
    delivery_id: null,
    token_id: null,
    actor_user_id: null,
    actor_email: null,
    actor_name: null,
    event_type: null,
    severity: null,
    external_status: null,
    fire_count: null,
    state: 'inbox',
    snoozed_until: null,
    ...over,
  };
}

const event = (i: number): Partial<BriefItemRow> => ({
  delivery_id: ID,
  token_id: ID,
  event_type: `personal.${TEXTS[i % TEXTS.length]}`,
  severity: i % 2 ? 'warn' : null,
  external_status: i % 3 ? 'firing' : null,
  fire_count: i,
});

const rows: BriefItemRow[] = [];
for (let i = 0; i < TEXTS.length * 4; i++) {
  rows.push(row(i));
  rows.push(row(i, event(i)));
  rows.push(row(i, { ...event(i + 1), actor_user_id: ID, actor_email: TEXTS[i % TEXTS.length]!, actor_name: i % 2 ? null : 'Ann "A"' }));
  rows.push(row(i, { state: 'snoozed', snoozed_until: new Date(Date.UTC(2026, 10, 23, 9)) }));
  rows.push(row(i, { state: 'done', actor_user_id: ID, actor_email: 'a@example.test', actor_name: 'A', target_url: 'https://x.test/?a="b"' }));
}

describe('list_inbox: its JSON text written by hand', () => {
  it.each([
    ['a page', { totalCount: 10_000, unreadCount: 7, items: rows.map(toInboxItem) }],
    ['a capped search', { totalCount: 1000, unreadCount: 1000, totalCountCapped: true as const, items: rows.slice(0, 3).map(toInboxItem) }],
    ['an empty page', { totalCount: 0, unreadCount: 0, items: [] }],
  ])('%s: the text JSON.stringify makes, and that text escaped as JSON.stringify escapes it', (_name, out: ListInboxResult) => {
    const { json, escaped } = listInboxText(out);
    expect(json).toBe(JSON.stringify(out));
    expect(`"${escaped}"`).toBe(JSON.stringify(json));
  });

  it('numbers as JSON.stringify writes them (non-finite: null)', () => {
    for (const n of [0, -0, 1.5, 1e21, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY]) {
      const { json, escaped } = new JsonTextWriter().number(n).text();
      expect(json).toBe(JSON.stringify(n));
      expect(escaped).toBe(json);
    }
  });
});
