// Pure rules of web sign-in that take what a browser sends: `next`, the session cookie, the csrf
// field. Hostile values are no session, no token, or `/`, never an error.
import { describe, expect, it } from 'vitest';
import { csrfTokenOrNull, newSecret, safeNextPath, sessionTokenOrNull } from '../../src/domain/web/web-session.rules.js';

describe('safeNextPath', () => {
  it('keeps a same-origin path, percent-encoding what is not printable ASCII', () => {
    expect(safeNextPath('/inbox/42?x=1')).toBe('/inbox/42?x=1');
    expect(safeNextPath('/inbox/€ ü')).toBe('/inbox/%E2%82%AC%20%C3%BC');
  });
  it('gives / for another origin, control characters, an unpaired surrogate, non-strings and oversize', () => {
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example/', 'inbox', '', '/a\u0000b', '/a\nb', '/a\u007f', '/\ud800x']) {
      expect(safeNextPath(bad), JSON.stringify(bad)).toBe('/');
    }
    for (const bad of [undefined, null, 42, ['/x'], { __proto__: { x: 1 } }]) expect(safeNextPath(bad)).toBe('/');
    expect(safeNextPath(`/${'a'.repeat(2000)}`)).toBe('/');
    // Within 2000 characters as sent, over it once encoded.
    expect(safeNextPath(`/${'€'.repeat(300)}`)).toBe('/');
  });
});

describe('session and csrf values', () => {
  it('accept only values of their own shape', () => {
    const s = newSecret('fds_');
    const c = newSecret('fdc_');
    expect(sessionTokenOrNull(s)).toBe(s);
    expect(csrfTokenOrNull(c)).toBe(c);
    expect(sessionTokenOrNull(c)).toBeNull();
    expect(csrfTokenOrNull(s)).toBeNull();
    for (const bad of [
      undefined,
      '',
      'fds_',
      `${s}x`,
      `${s.slice(0, -1)}\u0000`,
      `${s.slice(0, -1)}\ud800`,
      'x'.repeat(20_000),
      '__proto__',
      { toString: () => s },
    ]) {
      expect(sessionTokenOrNull(bad)).toBeNull();
      expect(csrfTokenOrNull(bad)).toBeNull();
    }
  });
});
