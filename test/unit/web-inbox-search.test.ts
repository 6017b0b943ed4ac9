// The inbox search box's rules without the DOM (web/src/inbox-search.ts): the view and the query in
// the address, the result line ("1,000+ results" when the server's count is capped), the "Mark all
// done" label under a search, and the server's reason for a query it cannot read.
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { ValidationErrorDetailSchema } from '../../gen/fluxdesk/common/v1/errors_pb.js';
import { inboxHref, locationOf, markAllDoneLabel, queryProblem, resultsText } from '../../web/src/inbox-search.ts';

describe('the address', () => {
  it('locationOf: the view and the trimmed query; no query is ""', () => {
    expect(locationOf('')).toEqual({ view: 'inbox', q: '' });
    expect(locationOf('?view=done&q=%20deploy%20severity%3Acritical%20')).toEqual({ view: 'done', q: 'deploy severity:critical' });
    expect(locationOf('?view=nope&q=')).toEqual({ view: 'inbox', q: '' });
  });

  it('inboxHref: / for the Inbox without a search, the view and q otherwise; round trips through locationOf', () => {
    expect(inboxHref('inbox')).toBe('/');
    expect(inboxHref('inbox', '  ')).toBe('/');
    expect(inboxHref('done')).toBe('/?view=done');
    expect(inboxHref('inbox', 'déploiement')).toBe('/?q=d%C3%A9ploiement');
    const href = inboxHref('all', 'a&b=c -is:read "x y"');
    expect(locationOf(href.slice(1))).toEqual({ view: 'all', q: 'a&b=c -is:read "x y"' });
  });
});

describe('texts', () => {
  it('resultsText: one, many with a thousands separator, 1,000+ when capped', () => {
    expect(resultsText(0, false)).toBe('0 results');
    expect(resultsText(1, false)).toBe('1 result');
    expect(resultsText(12, false)).toBe('12 results');
    expect(resultsText(1000, true)).toBe('1,000+ results');
  });

  it('markAllDoneLabel: unchanged without a search; under one, what it acts on', () => {
    expect(markAllDoneLabel(false, 12, false)).toBe('Mark all done');
    expect(markAllDoneLabel(true, 12, false)).toBe('Mark all 12 results done');
    expect(markAllDoneLabel(true, 1, false)).toBe('Mark the 1 result done');
    expect(markAllDoneLabel(true, 1000, true)).toBe('Mark all 1,000+ results done');
  });
});

describe('queryProblem', () => {
  const invalid = (field: string, message: string) =>
    new ConnectError('validation failed', Code.InvalidArgument, undefined, [
      { desc: ValidationErrorDetailSchema, value: create(ValidationErrorDetailSchema, { violations: [{ field, code: 'invalid_query', message }] }) },
    ]);

  it("the violation of field query: the server's message", () => {
    const m = 'could not read "severity:fatal": severity: is one of critical, warn, info, success';
    expect(queryProblem(invalid('query', m))).toBe(m);
  });

  it("anything else is not the query's", () => {
    expect(queryProblem(invalid('limit', 'too big'))).toBeUndefined();
    expect(queryProblem(new ConnectError('down', Code.Unavailable))).toBeUndefined();
    expect(queryProblem(new Error('x'))).toBeUndefined();
  });
});
