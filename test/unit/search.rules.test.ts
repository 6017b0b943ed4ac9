// Pure parts of the cross-type search (SPEC C `search`): links, snippets, scores, and how the
// statement is built (types left out by filters, input only ever as parameters).
import { describe, expect, it } from 'vitest';
import { searchStatement } from '../../src/domain/search/search.repository.js';
import { hitSnippet, hitUrl, meetingSnippet, roundScore, SEARCH_TYPES } from '../../src/domain/search/search.rules.js';
import { SearchInput } from '../../src/domain/search/search.js';

const BASE = 'https://desk.example.com';
const ID = '7f1c1f7e-6a57-4c1e-9d55-0b6f3f1f2a10';
const PARENT = '0b9e8b7a-1111-4c1e-9d55-0b6f3f1f2a10';
const member = { userId: '11111111-1111-4111-8111-111111111111', userRole: 'member' };
const admin = { userId: '22222222-2222-4222-8222-222222222222', userRole: 'admin' };
const NOW = new Date('2026-11-22T08:00:00Z');

describe('hitUrl', () => {
  it('gives an absolute link per type; comments link to their parent with an anchor', () => {
    expect(hitUrl(BASE, { type: 'task', id: ID, parentType: null, linkRef: 'WEB-12' })).toBe(`${BASE}/tasks/WEB-12`);
    expect(hitUrl(BASE, { type: 'task', id: ID, parentType: null, linkRef: null })).toBe(`${BASE}/tasks/${ID}`);
    expect(hitUrl(BASE, { type: 'meeting', id: ID, parentType: null, linkRef: null })).toBe(`${BASE}/meetings/${ID}`);
    expect(hitUrl(BASE, { type: 'notification', id: ID, parentType: null, linkRef: null })).toBe(`${BASE}/inbox/${ID}`);
    expect(hitUrl(BASE, { type: 'feedback', id: ID, parentType: null, linkRef: null })).toBe(`${BASE}/feedback/${ID}`);
    expect(hitUrl(BASE, { type: 'comment', id: ID, parentType: 'task', linkRef: 'WEB-12' })).toBe(`${BASE}/tasks/WEB-12#comment-${ID}`);
    expect(hitUrl(BASE, { type: 'comment', id: ID, parentType: 'feedback', linkRef: PARENT })).toBe(`${BASE}/feedback/${PARENT}#comment-${ID}`);
  });
});

describe('hitSnippet and roundScore', () => {
  it('marks text cut on either side of the SQL window', () => {
    expect(hitSnippet('needle', 'a needle here', 1, 13)).toBe('a needle here');
    expect(hitSnippet('needle', 'a needle here', 40, 200)).toBe('…a needle here…');
    expect(hitSnippet('NEEDLE', 'x needle', 1, 8)).toBe('x needle');
  });
  it("adds a meeting's time to its snippet", () => {
    expect(meetingSnippet('Retro', '2026-11-23T10:00:00Z', null)).toBe('Retro (2026-11-23T10:00:00.000Z)');
    expect(meetingSnippet('Retro', new Date('2026-11-23T10:00:00Z'), '2026-11-23T11:00:00+01:00')).toBe(
      'Retro (2026-11-23T10:00:00.000Z – 2026-11-23T10:00:00.000Z)',
    );
  });
  it('rounds to four decimals from numeric text or numbers', () => {
    expect(roundScore('0.56789')).toBe(0.5679);
    expect(roundScore(0.25)).toBe(0.25);
  });
});

describe('searchStatement', () => {
  it('puts the query and filters only into parameters', () => {
    const q = `x'; drop table tasks; --`;
    const s = searchStatement(member, SEARCH_TYPES, q, { projectSlug: "p'", authorEmail: "a'@b.c", since: NOW.toISOString(), status: 'todo' }, 20, NOW)!;
    expect(s.text).not.toContain('drop table');
    expect(s.text).not.toContain("p'");
    expect(s.params).toContain(q);
    expect(s.params).toContain(`%x'; drop table tasks; --%`);
    expect(s.text.split('?').length - 1).toBe(s.params.length);
  });

  it('ranks at most 500 candidates per branch, then cuts each branch and the merged list to the limit', () => {
    const s = searchStatement(member, ['task', 'meeting'], 'x', {}, 7, NOW)!;
    expect(s.text.match(/limit 500/g)).toHaveLength(2);
    expect(s.params.filter((p) => p === 7)).toHaveLength(3);
  });

  it('escapes LIKE wildcards in the pattern', () => {
    const s = searchStatement(member, ['task'], '100%_a\\b', {}, 5, NOW)!;
    expect(s.params).toContain('%100\\%\\_a\\\\b%');
  });

  it('leaves out types a filter excludes: notifications with project_slug, meetings and other statuses with status', () => {
    expect(searchStatement(member, ['notification'], 'x', { projectSlug: 'p' }, 5, NOW)).toBeNull();
    expect(searchStatement(member, ['meeting'], 'x', { status: 'todo' }, 5, NOW)).toBeNull();
    expect(searchStatement(member, ['notification'], 'x', { status: 'todo' }, 5, NOW)).toBeNull();
    expect(searchStatement(member, ['notification'], 'x', { status: 'unread' }, 5, NOW)!.text).toContain('n.read_at is null');
    expect(searchStatement(member, ['meeting', 'task'], 'x', { status: 'todo' }, 5, NOW)!.text).not.toContain('from meetings');
  });

  it('restricts a member to their projects and notifications in SQL; org-wide roles skip the project predicate only', () => {
    const m = searchStatement(member, SEARCH_TYPES, 'x', {}, 5, NOW)!;
    expect(m.text).toContain('from project_members m where m.user_id = ?');
    expect(m.text).toContain('n.user_id = ?');
    expect(m.params).toContain(member.userId);
    const a = searchStatement(admin, ['task', 'meeting'], 'x', {}, 5, NOW)!;
    expect(a.text).not.toContain('project_members');
    expect(a.text).toContain('t.creator_user_id = ?'); // drafts stay their creator's
    expect(searchStatement(admin, ['notification'], 'x', {}, 5, NOW)!.params).toContain(admin.userId);
  });
});

describe('SearchInput', () => {
  it('defaults the limit, normalises project_slug and rejects control characters', () => {
    expect(SearchInput.parse({ query: ' abc ' })).toEqual({ query: 'abc', limit: 20 });
    expect(SearchInput.parse({ query: 'a', filters: { project_slug: 'WEB' } }).filters).toEqual({ project_slug: 'web' });
    expect(SearchInput.safeParse({ query: 'a\tb' }).success).toBe(false);
    expect(SearchInput.safeParse({ query: 'a', filters: { since: '2026-11-22T08:00:00' } }).success).toBe(false);
    expect(SearchInput.safeParse({ query: 'a', filters: { since: '2026-11-22T08:00:00+01:00' } }).success).toBe(true);
  });
});
