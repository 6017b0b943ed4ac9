// SPEC "Agent token scopes" and its matching rules; Versioning 5 (one-way supersets).
import { describe, expect, it } from 'vitest';
import { hasScope, KNOWN_SCOPES, scopeGrants } from '../../src/domain/tokens/scopes.rules.js';

const ALL_CONCRETE = KNOWN_SCOPES.filter((s) => s !== '*' && !s.endsWith(':*'));

describe('scopeGrants', () => {
  it('`*` grants every scope, including wildcards and unknown future scopes', () => {
    for (const s of KNOWN_SCOPES) expect(scopeGrants('*', s)).toBe(true);
    expect(scopeGrants('*', 'read:something_new')).toBe(true);
  });

  it('an exact scope grants itself', () => {
    for (const s of ALL_CONCRETE) expect(scopeGrants(s, s)).toBe(true);
  });

  it('`<module>:*` grants every scope of its module, nested ones included', () => {
    for (const s of ALL_CONCRETE) {
      const module = s.split(':')[0]!;
      expect(scopeGrants(`${module}:*`, s)).toBe(true);
    }
    expect(scopeGrants('write:*', 'write:docs:publish')).toBe(true);
    expect(scopeGrants('code:*', 'code:repo:bind')).toBe(true);
    expect(scopeGrants('read:*', 'read:future_area')).toBe(true);
  });

  it('`<module>:*` grants nothing outside its module (read:* does not grant write:tasks)', () => {
    expect(scopeGrants('read:*', 'write:tasks')).toBe(false);
    expect(scopeGrants('read:*', 'admin:catalog')).toBe(false);
    expect(scopeGrants('write:*', 'read:inbox')).toBe(false);
    expect(scopeGrants('admin:*', 'write:inbox')).toBe(false);
    for (const s of ALL_CONCRETE.filter((x) => !x.startsWith('read:'))) expect(scopeGrants('read:*', s)).toBe(false);
  });

  it('a module wildcard is not granted by a concrete scope of that module', () => {
    expect(scopeGrants('read:inbox', 'read:*')).toBe(false);
    expect(scopeGrants('admin:catalog', 'admin:*')).toBe(false);
  });

  it('different concrete scopes do not grant each other', () => {
    expect(scopeGrants('read:inbox', 'write:inbox')).toBe(false);
    expect(scopeGrants('write:inbox', 'read:inbox')).toBe(false);
    expect(scopeGrants('read:tasks', 'read:feedback')).toBe(false);
    expect(scopeGrants('write:inbound', 'write:inbound:bulk')).toBe(false);
    expect(scopeGrants('write:inbound:bulk', 'write:inbound')).toBe(false);
  });

  it('admin:catalog also satisfies admin:approvals, admin:tokens and admin:users — one way only', () => {
    for (const narrow of ['admin:approvals', 'admin:tokens', 'admin:users']) {
      expect(scopeGrants('admin:catalog', narrow)).toBe(true);
      expect(scopeGrants(narrow, 'admin:catalog')).toBe(false);
    }
    expect(scopeGrants('admin:catalog', 'admin:broadcast')).toBe(false);
    expect(scopeGrants('admin:catalog', 'admin:on_behalf_of')).toBe(false);
    expect(scopeGrants('admin:catalog', 'admin:projects')).toBe(false);
    expect(scopeGrants('admin:approvals', 'admin:tokens')).toBe(false);
  });

  it('write:docs is the parent of write:docs:draft and write:docs:publish — one way only', () => {
    expect(scopeGrants('write:docs', 'write:docs:draft')).toBe(true);
    expect(scopeGrants('write:docs', 'write:docs:publish')).toBe(true);
    expect(scopeGrants('write:docs:draft', 'write:docs')).toBe(false);
    expect(scopeGrants('write:docs:publish', 'write:docs')).toBe(false);
    expect(scopeGrants('write:docs:draft', 'write:docs:publish')).toBe(false);
    expect(scopeGrants('read:docs', 'write:docs:draft')).toBe(false);
  });

  it('a string that merely shares a prefix is not a match', () => {
    expect(scopeGrants('read:in', 'read:inbox')).toBe(false);
    expect(scopeGrants('read', 'read:inbox')).toBe(false);
    expect(scopeGrants('', 'read:inbox')).toBe(false);
    expect(scopeGrants('rea*', 'read:inbox')).toBe(false);
  });
});

describe('hasScope', () => {
  it('a requirement is a list of alternatives: any one held suffices', () => {
    expect(hasScope(['admin:projects'], ['code:repo:bind', 'admin:projects'])).toBe(true);
    expect(hasScope(['code:repo:bind'], ['code:repo:bind', 'admin:projects'])).toBe(true);
    expect(hasScope(['read:*'], ['code:repo:bind', 'admin:projects'])).toBe(false);
  });

  it('any held scope may satisfy it', () => {
    expect(hasScope(['read:tasks', 'write:inbox'], ['write:inbox'])).toBe(true);
    expect(hasScope(['read:tasks', 'read:*'], ['read:inbox'])).toBe(true);
    expect(hasScope(['admin:catalog'], ['admin:users'])).toBe(true);
  });

  it('no scopes held grants nothing; tokens from before scopes carry `*`', () => {
    expect(hasScope([], ['read:inbox'])).toBe(false);
    expect(hasScope(['*'], ['admin:broadcast'])).toBe(true);
  });
});
