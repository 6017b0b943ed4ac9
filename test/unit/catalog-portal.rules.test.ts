// The pure rules of the catalog a person uses (catalog.rules.ts): the caller's status for a row,
// the status of their own requests, the not_pending texts, and the grouping by category.
import { describe, expect, it } from 'vitest';
import { groupByCategory, notPendingMessage, ownRequestStatus, rowStatusOf } from '../../src/domain/catalog/catalog.rules.js';

describe('statuses', () => {
  it('a row: none without a request or after a withdraw, else the REST status', () => {
    expect(rowStatusOf(null)).toBe('none');
    expect(rowStatusOf('withdrawn')).toBe('none');
    expect(rowStatusOf('pending')).toBe('pending');
    for (const s of ['approved', 'in_execution', 'completed']) expect(rowStatusOf(s)).toBe('approved');
    expect(rowStatusOf('rejected')).toBe('rejected');
    for (const s of ['revoked', 'cancelled']) expect(rowStatusOf(s)).toBe('revoked');
  });

  it('an own request keeps withdrawn', () => {
    expect(ownRequestStatus('withdrawn')).toBe('withdrawn');
    expect(ownRequestStatus('in_execution')).toBe('approved');
    expect(ownRequestStatus('cancelled')).toBe('revoked');
  });

  it('says why a request is no longer pending', () => {
    expect(notPendingMessage('approved')).toBe('request was already reviewed: approved');
    expect(notPendingMessage('completed')).toBe('request was already reviewed: approved');
    expect(notPendingMessage('rejected')).toBe('request was already reviewed: rejected');
    expect(notPendingMessage('withdrawn')).toBe('request was withdrawn by the applicant');
    expect(notPendingMessage('revoked')).toBe('request was revoked');
  });
});

describe('groupByCategory', () => {
  it('standard categories in their order, then others by label (English collation), rows without one last; rows keep their order', () => {
    const rows = [
      { id: 1, category: null },
      { id: 2, category: 'network' },
      { id: 3, category: '🧪 Labs' },
      { id: 4, category: 'llm-backend' },
      { id: 5, category: 'network' },
      { id: 6, category: 'Books' },
    ];
    const groups = groupByCategory(rows);
    expect(groups.map((g) => [g.category, g.display, g.rows.map((r) => r.id)])).toEqual([
      ['llm-backend', 'LLM backend', [4]],
      ['network', 'Network', [2, 5]],
      // Old rows' display strings sort by their label as English collation has it (symbols first).
      ['🧪 Labs', '🧪 Labs', [3]],
      ['Books', 'Books', [6]],
      ['', 'Other', [1]],
    ]);
    expect(groupByCategory([])).toEqual([]);
  });
});
