// The inbox search language (src/domain/inbox/inbox-query.rules.ts): words folded to lower case
// without accents, every qualifier and its negation, comma alternatives, and each malformed part
// named in the error.
import { describe, expect, it } from 'vitest';
import { fold, parseInboxQuery } from '../../src/domain/inbox/inbox-query.rules.js';

const ok = (q: string) => {
  const r = parseInboxQuery(q);
  if (!r.ok) throw new Error(`${r.part}: ${r.message}`);
  return r.query;
};
const bad = (q: string) => {
  const r = parseInboxQuery(q);
  if (r.ok) throw new Error(`expected an error for ${q}`);
  return { part: r.part, message: r.message };
};

describe('words', () => {
  it('folds case and accents, splits on punctuation, keeps quoted phrases as words', () => {
    expect(ok('Déploiement ÉCHOUÉ')).toEqual({ words: ['deploiement', 'echoue'], filters: [] });
    expect(ok('"build failed" prod-eu')).toEqual({ words: ['build', 'failed', 'prod', 'eu'], filters: [] });
    expect(ok('   ')).toEqual({ words: [], filters: [] });
    expect(fold('Ünïcödé')).toBe('unicode');
  });
  it('a URL is text, not a qualifier', () => {
    expect(ok('https://ci.example.com/run')).toEqual({ words: ['https', 'ci', 'example', 'com', 'run'], filters: [] });
  });
});

describe('qualifiers', () => {
  it('reads each qualifier, its comma alternatives and a leading - as negation', () => {
    expect(ok('is:unread -severity:info,success status:FIRING type:ci.build from:grafana after:2026-11-01 before:2026-12-01 disk').filters).toEqual([
      { name: 'is', values: ['unread'], negated: false },
      { name: 'severity', values: ['info', 'success'], negated: true },
      { name: 'status', values: ['firing'], negated: false },
      { name: 'type', values: ['ci.build'], negated: false },
      { name: 'from', values: ['grafana'], negated: false },
      { name: 'after', values: ['2026-11-01'], negated: false },
      { name: 'before', values: ['2026-12-01'], negated: false },
    ]);
    expect(ok('-is:done,snoozed').filters).toEqual([{ name: 'is', values: ['done', 'snoozed'], negated: true }]);
  });

  it('names the part it could not read', () => {
    expect(bad('disk severity:fatal')).toEqual({ part: 'severity:fatal', message: 'severity: is one of critical, warn, info, success' });
    expect(bad('is:')).toMatchObject({ part: 'is:', message: expect.stringContaining('needs a value') });
    expect(bad('after:2026-02-30')).toMatchObject({ part: 'after:2026-02-30', message: 'after: is a date as YYYY-MM-DD (UTC)' });
    expect(bad('before:yesterday')).toMatchObject({ part: 'before:yesterday' });
    expect(bad('label:env')).toMatchObject({ part: 'label:env', message: expect.stringContaining('is not a qualifier') });
    expect(bad('type:CI*')).toMatchObject({ part: 'type:CI*' });
    expect(bad('-disk')).toMatchObject({ part: '-disk', message: expect.stringContaining('negates a qualifier') });
    expect(bad('"unclosed phrase')).toMatchObject({ message: 'has a quote that is not closed' });
  });

  it('bounds the size of a query', () => {
    expect(bad('x'.repeat(501)).message).toContain('longer than 500');
    expect(bad(Array.from({ length: 21 }, (_, i) => `w${i}`).join(' ')).message).toContain('at most 20 parts');
  });

  it('hostile text is read or refused, never thrown', () => {
    for (const q of ['\u0000', 'is:\u0000', '\ud800', 'from:\ud800', '__proto__:x', 'constructor', '-', '--is:read', '::', 'is:read,,done']) {
      expect(() => parseInboxQuery(q)).not.toThrow();
    }
    expect(bad('__proto__:x').message).toContain('is not a qualifier');
  });
});
