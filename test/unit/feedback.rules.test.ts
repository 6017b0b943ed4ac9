// Pure feedback rules (agent-protocol.md 14): triage placement, auto_delete_after durations,
// visibility and anonymity, and the body bound (SPEC Limits: feedback body 8000, rejected not truncated).
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { assertBodyLength, charLength } from '../../src/domain/feedback/feedback-errors.js';
import {
  canSeeFeedback,
  deleteAfterFrom,
  feedbackUrl,
  parseAutoDeleteAfter,
  placeFeedback,
  showsAuthor,
  showsCommentAuthor,
} from '../../src/domain/feedback/feedback.rules.js';
import { toolErrorEnvelope } from '../../src/transports/mcp/errors.js';

describe('placeFeedback', () => {
  it('no slug: triage (no_project); an unresolved slug: triage (unknown_project); else the project', () => {
    expect(placeFeedback(null, null)).toEqual({ projectId: null, triage: true, reason: 'no_project' });
    expect(placeFeedback('', null)).toEqual({ projectId: null, triage: true, reason: 'no_project' });
    expect(placeFeedback('x', null)).toEqual({ projectId: null, triage: true, reason: 'unknown_project' });
    expect(placeFeedback('x', 'p1')).toEqual({ projectId: 'p1', triage: false, reason: null });
  });
});

describe('parseAutoDeleteAfter', () => {
  it('accepts weeks, days, hours and days+hours within PT1H..P365D', () => {
    expect(parseAutoDeleteAfter('PT1H')).toEqual({ hours: 1 });
    expect(parseAutoDeleteAfter('pt12h')).toEqual({ hours: 12 });
    expect(parseAutoDeleteAfter('P30D')).toEqual({ hours: 720 });
    expect(parseAutoDeleteAfter('P2W')).toEqual({ hours: 336 });
    expect(parseAutoDeleteAfter('P1DT12H')).toEqual({ hours: 36 });
    expect(parseAutoDeleteAfter(' P365D ')).toEqual({ hours: 8760 });
    expect(parseAutoDeleteAfter('PT8760H')).toEqual({ hours: 8760 });
  });
  it('refuses other forms and out-of-range values', () => {
    for (const s of ['', 'P', 'PT', 'P1DT', 'P1M', 'P1Y', 'PT30M', 'P1W2D', '30', '-P1D', 'P1.5D', 'PT0H', 'P0D', 'P366D', 'PT8761H', 'P53W']) {
      expect(parseAutoDeleteAfter(s), s).toHaveProperty('error');
    }
  });
  it('delete_after is created_at plus the hours', () => {
    expect(deleteAfterFrom(new Date('2026-01-01T00:00:00Z'), 36).toISOString()).toBe('2026-01-02T12:00:00.000Z');
  });
});

describe('visibility and anonymity', () => {
  const now = new Date('2026-06-01T00:00:00Z');
  const member = { userId: 'm', userRole: 'member' };
  const project = { authorUserId: 'a', triage: false, projectId: 'p', deleteAfter: null };
  const pool = { authorUserId: 'a', triage: true, projectId: null, deleteAfter: null };
  it('the author always; members of the active project; org-wide roles; the pool only author and org-wide', () => {
    expect(canSeeFeedback({ userId: 'a', userRole: 'member' }, pool, false, now)).toBe(true);
    expect(canSeeFeedback(member, project, true, now)).toBe(true);
    expect(canSeeFeedback(member, project, false, now)).toBe(false);
    expect(canSeeFeedback(member, pool, true, now)).toBe(false);
    for (const role of ['admin', 'super_admin', 'coordinator']) expect(canSeeFeedback({ userId: 'x', userRole: role }, pool, false, now), role).toBe(true);
    for (const role of ['assistant', 'hr_admin']) expect(canSeeFeedback({ userId: 'x', userRole: role }, pool, false, now), role).toBe(false);
  });
  it('nobody sees feedback from its delete_after on, the author included', () => {
    const due = { ...project, deleteAfter: now };
    expect(canSeeFeedback({ userId: 'a', userRole: 'super_admin' }, due, true, now)).toBe(false);
    expect(canSeeFeedback({ userId: 'a', userRole: 'member' }, due, true, new Date(now.getTime() - 1))).toBe(true);
  });
  it('anonymous authors are shown to themselves only, on the feedback and on their own comments', () => {
    const f = { authorUserId: 'a', isAnonymous: true };
    expect(showsAuthor('a', f)).toBe(true);
    expect(showsAuthor('admin', f)).toBe(false);
    expect(showsAuthor('x', { ...f, isAnonymous: false })).toBe(true);
    expect(showsCommentAuthor('x', f, 'a')).toBe(false);
    expect(showsCommentAuthor('a', f, 'a')).toBe(true);
    expect(showsCommentAuthor('x', f, 'b')).toBe(true);
    expect(showsCommentAuthor('x', { ...f, isAnonymous: false }, 'a')).toBe(true);
  });
  it('url is absolute under the public base', () => {
    expect(feedbackUrl({ publicBaseUrl: 'https://desk.example.com' }, 'abc')).toBe('https://desk.example.com/feedback/abc');
  });
});

describe('body bound', () => {
  it('counts code points; over the bound is a structured validation_failed on body, never truncated', () => {
    expect(charLength('🙂é')).toBe(2);
    expect(() => assertBodyLength('x'.repeat(8000))).not.toThrow();
    expect(() => assertBodyLength('🙂'.repeat(8000))).not.toThrow();
    let err: unknown;
    try {
      assertBodyLength('x'.repeat(8001));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DomainError);
    expect(toolErrorEnvelope(err as DomainError, 'structured', 'https://e')).toEqual({
      error: { type: 'validation_failed', title: 'body_too_long', detail: expect.stringContaining('8001'), field: 'body' },
    });
  });
});
