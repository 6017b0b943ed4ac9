// The inbox search document (src/domain/inbox/search-doc.rules.ts): the lexemes a row is indexed
// by, folded like the query, behind the owner's key, and the tsquery a parsed search becomes.
import { describe, expect, it } from 'vitest';
import { parseInboxQuery } from '../../src/domain/inbox/inbox-query.rules.js';
import {
  SEARCH_DOC_LIMITS,
  indexWords,
  inTsquery,
  searchLexemes,
  searchLexemesLiteral,
  searchTsquery,
  userKey,
} from '../../src/domain/inbox/search-doc.rules.js';

const USER = '3f2a9c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b';
const query = (q: string) => {
  const r = parseInboxQuery(q);
  if (!r.ok) throw new Error(r.message);
  return r.query;
};

describe('search document', () => {
  it('the key is the last 6 hex digits of the owner id', () => {
    expect(userKey(USER)).toBe('4f5a6b');
    expect(userKey(USER.toUpperCase())).toBe('4f5a6b');
  });

  it('words are folded and split like the query, ASCII or not; long words are cut', () => {
    expect(indexWords('Build #4821 FAILED (deploy-api)')).toEqual(['build', '4821', 'failed', 'deploy', 'api']);
    expect(indexWords('Déploiement échoué — Zoë/Ångström')).toEqual(['deploiement', 'echoue', 'zoe', 'angstrom']);
    // Folding drops every combining mark, й's breve too (the query folds the same way).
    expect(indexWords('Сбой сборки 東京')).toEqual(['сбои', 'сборки', '東京']);
    expect(indexWords('x'.repeat(100))).toEqual(['x'.repeat(SEARCH_DOC_LIMITS.wordMax)]);
    expect(indexWords('  --  ')).toEqual([]);
  });

  it('lexemes: title, summary, label values (not keys) and actor name, distinct, keyed, bounded', () => {
    const l = searchLexemes({
      userId: USER,
      title: 'Disk full',
      summary: 'disk at 91%',
      labels: { host: 'db-1', nested: { no: 'objects' }, n: 5 },
      actorName: 'Zoë',
    });
    expect(l).toEqual(['4f5a6b:disk', '4f5a6b:full', '4f5a6b:at', '4f5a6b:91', '4f5a6b:db', '4f5a6b:1', '4f5a6b:zoe']);
    const many = searchLexemes({ userId: USER, title: Array.from({ length: 500 }, (_, i) => `w${i}`).join(' ') });
    expect(many).toHaveLength(SEARCH_DOC_LIMITS.lexemesMax);
    expect(searchLexemesLiteral({ userId: USER, title: 'A b' })).toBe('{"4f5a6b:a","4f5a6b:b"}');
    expect(searchLexemesLiteral({ userId: USER, title: '!!' })).toBe('{}');
  });

  it('a quote, backslash or brace in the text never reaches a lexeme (the literal needs no escaping)', () => {
    const lit = searchLexemesLiteral({ userId: USER, title: `a"b\\c{d}e,f'g`, summary: '"}' });
    expect(lit).toBe('{"4f5a6b:a","4f5a6b:b","4f5a6b:c","4f5a6b:d","4f5a6b:e","4f5a6b:f","4f5a6b:g"}');
  });
});

describe('tsquery', () => {
  it('words are keyed prefixes; positive severity and type are lexemes (type a prefix), alternatives OR', () => {
    expect(searchTsquery(USER, query('Disk FULL'))).toBe("'4f5a6b:disk':* & '4f5a6b:full':*");
    expect(searchTsquery(USER, query('severity:critical,warn type:personal.CI'))).toBe("('4f5a6b!s:critical' | '4f5a6b!s:warn') & '4f5a6b!t:personal.ci':*");
  });
  it('a negated severity or type is a NOT beside a positive part; alone, it and the other qualifiers are left to row conditions', () => {
    const alone = query('-severity:info is:unread -from:ci status:firing after:2026-01-01');
    expect(searchTsquery(USER, alone)).toBeUndefined();
    expect(alone.filters.filter((f) => inTsquery(f, alone))).toEqual([]);
    const beside = query('disk -type:personal.mon -severity:info,warn status:firing');
    expect(searchTsquery(USER, beside)).toBe("'4f5a6b:disk':* & !'4f5a6b!t:personal.mon':* & !('4f5a6b!s:info' | '4f5a6b!s:warn')");
    expect(beside.filters.filter((f) => inTsquery(f, beside)).map((f) => f.name)).toEqual(['type', 'severity']);
  });
  it('a positive from: is the lexemes of the tokens it names (looked up first), or one no row has; it lets a negated severity be a NOT', () => {
    const q = query('from:CI,deploy-bot -severity:info');
    const named = (f: { values: string[] }) =>
      f.values.includes('CI') ? ['0b6c2a1e-0000-4000-8000-00000000000a', '0b6c2a1e-0000-4000-8000-00000000000b'] : [];
    expect(searchTsquery(USER, q, named)).toBe(
      "('4f5a6b!f:0b6c2a1e00004000800000000000000a' | '4f5a6b!f:0b6c2a1e00004000800000000000000b') & !'4f5a6b!s:info'",
    );
    expect(q.filters.filter((f) => inTsquery(f, q)).map((f) => f.name)).toEqual(['from', 'severity']);
    expect(searchTsquery(USER, query('from:nobody'), () => [])).toBe("'4f5a6b!f:none'");
    expect(() => searchTsquery(USER, query('from:ci'))).toThrow();
  });
});
