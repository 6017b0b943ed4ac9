// Pure task rules (src/domain/tasks/tasks.rules.ts): the transition table, codes, parent chains,
// reviewer/cc filtering. No database.
import { describe, expect, it } from 'vitest';
import {
  allowedNextStatuses,
  checkParentChain,
  checkTransition,
  describeTransitions,
  keepParticipants,
  MAX_TASK_DEPTH,
  normalizeTaskCode,
  TASK_CODE_PATTERN,
  TASK_STATUSES,
  TASK_TRANSITIONS,
  taskCode,
  type TaskActor,
  type TaskStatus,
} from '../../src/domain/tasks/tasks.rules.js';

const assignee: TaskActor = { isAssignee: true, isAdmin: false, isReviewer: false };
const admin: TaskActor = { isAssignee: false, isAdmin: true, isReviewer: false };
const reviewer: TaskActor = { isAssignee: false, isAdmin: false, isReviewer: true };
const stranger: TaskActor = { isAssignee: false, isAdmin: false, isReviewer: false };

describe('transition table', () => {
  it('is exactly the published table', () => {
    expect(TASK_TRANSITIONS.map((t) => `${t.from}>${t.to}:${t.who}`)).toEqual([
      'todo>in_progress:assignee',
      'todo>cancelled:assignee',
      'in_progress>review:assignee',
      'in_progress>todo:assignee',
      'in_progress>cancelled:assignee',
      'review>done:reviewer',
      'review>in_progress:reviewer',
      'done>in_progress:admin',
      'cancelled>todo:admin',
    ]);
    expect(describeTransitions()).toContain('review -> done (assignee, reviewer or admin)');
    expect(describeTransitions()).toContain('cancelled -> todo (admin only)');
  });

  it('every pair of statuses: listed edges pass for an admin, the rest are not_allowed or same_status', () => {
    for (const from of TASK_STATUSES) {
      for (const to of TASK_STATUSES) {
        const r = checkTransition(from, to, admin);
        const listed = TASK_TRANSITIONS.some((t) => t.from === from && t.to === to);
        if (from === to) expect(r).toMatchObject({ ok: false, reason: 'same_status' });
        else if (listed) expect(r, `${from}->${to}`).toEqual({ ok: true });
        else expect(r, `${from}->${to}`).toMatchObject({ ok: false, reason: 'not_allowed' });
      }
    }
  });

  it('the assignee works todo/in_progress/review but cannot reopen or revive', () => {
    const ok = (from: TaskStatus, to: TaskStatus, a: TaskActor) => checkTransition(from, to, a).ok;
    expect(ok('todo', 'in_progress', assignee)).toBe(true);
    expect(ok('in_progress', 'review', assignee)).toBe(true);
    expect(ok('review', 'done', assignee)).toBe(true);
    expect(ok('review', 'in_progress', assignee)).toBe(true);
    expect(checkTransition('done', 'in_progress', assignee)).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(checkTransition('cancelled', 'todo', assignee)).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(checkTransition('todo', 'done', assignee)).toMatchObject({ ok: false, reason: 'not_allowed', allowed: ['in_progress', 'cancelled'] });
    expect(checkTransition('done', 'todo', admin)).toMatchObject({ ok: false, reason: 'not_allowed', allowed: ['in_progress'] });
  });

  it('a reviewer may only take review -> done or in_progress', () => {
    expect(checkTransition('review', 'done', reviewer)).toEqual({ ok: true });
    expect(checkTransition('review', 'in_progress', reviewer)).toEqual({ ok: true });
    expect(checkTransition('todo', 'in_progress', reviewer)).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(checkTransition('in_progress', 'review', reviewer)).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(allowedNextStatuses('review', reviewer)).toEqual(['done', 'in_progress']);
    expect(allowedNextStatuses('todo', reviewer)).toEqual([]);
  });

  it('someone who is neither assignee, admin nor reviewer may change nothing', () => {
    for (const t of TASK_TRANSITIONS) expect(checkTransition(t.from, t.to, stranger)).toMatchObject({ ok: false, reason: 'forbidden' });
  });

  it('done is terminal except for an admin reopening it', () => {
    expect(allowedNextStatuses('done', assignee)).toEqual([]);
    expect(allowedNextStatuses('done', admin)).toEqual(['in_progress']);
    expect(allowedNextStatuses('cancelled', admin)).toEqual(['todo']);
  });
});

describe('codes', () => {
  it('<PROJECT-SLUG-UPPER>-<n>, matched case-insensitively', () => {
    expect(taskCode('web-shop', 12)).toBe('WEB-SHOP-12');
    expect(normalizeTaskCode(' web-shop-12 ')).toBe('WEB-SHOP-12');
    expect(TASK_CODE_PATTERN.test('WEB-SHOP-12')).toBe(true);
    expect(TASK_CODE_PATTERN.test('ops-1')).toBe(true);
    for (const bad of ['WEB', 'WEB-', '-1', 'WEB SHOP-1', 'WEB-x']) expect(TASK_CODE_PATTERN.test(bad), bad).toBe(false);
  });
});

describe('parent chains', () => {
  it('depth: a root is level 1; more than 10 levels are refused', () => {
    expect(checkParentChain([])).toEqual({ ok: true, depth: 1 });
    const nine = Array.from({ length: MAX_TASK_DEPTH - 1 }, (_, i) => `a${i}`);
    expect(checkParentChain(nine)).toEqual({ ok: true, depth: 10 });
    expect(checkParentChain([...nine, 'root'])).toMatchObject({ ok: false, reason: 'too_deep' });
  });

  it('cycles: the task itself in its chain, or a repeated ancestor', () => {
    expect(checkParentChain(['p', 'q', 'me'], 'me')).toMatchObject({ ok: false, reason: 'cycle' });
    expect(checkParentChain(['p', 'q', 'p'])).toMatchObject({ ok: false, reason: 'cycle' });
    expect(checkParentChain(['p', 'q'], 'me')).toEqual({ ok: true, depth: 3 });
  });
});

describe('reviewers and cc', () => {
  const known = new Map([
    ['u1', { id: 'u1', status: 'active' }],
    ['a@x.test', { id: 'u1', status: 'active' }],
    ['u2', { id: 'u2', status: 'offboarded' }],
    ['me', { id: 'me', status: 'active' }],
    ['u3', { id: 'u3', status: 'active' }],
  ]);
  it('drops unknown, inactive, self and duplicates; keeps order', () => {
    expect(keepParticipants(['u3', 'nobody', 'u2', 'me', 'u1', 'a@x.test', 'U3'], known, 'me')).toEqual(['u3', 'u1']);
  });
  it('with a project, drops users who cannot see it', () => {
    expect(keepParticipants(['u3', 'u1'], known, 'me', new Set(['u1']))).toEqual(['u1']);
  });
});
