// The Idempotency-Key fingerprint (app/run-operation.ts fingerprintJson, safe-stable-stringify):
// key order at any depth does not change it, and its text is the canonical form the former
// hand-written function produced (sorted keys, no spaces), so records stored before still match.
import { describe, expect, it } from 'vitest';
import { fingerprintJson } from '../../src/app/run-operation.js';

describe('idempotency fingerprint text', () => {
  it('sorts keys at every level and keeps array order', () => {
    const a = { spec_version: '2', event: { title: 'x', actions: [{ label: 'Go', url: 'https://e.x' }], severity: 'warn' }, n: 1.5, ok: true, none: null };
    const b = { none: null, ok: true, n: 1.5, event: { severity: 'warn', actions: [{ url: 'https://e.x', label: 'Go' }], title: 'x' }, spec_version: '2' };
    expect(fingerprintJson(a)).toBe(fingerprintJson(b));
    expect(fingerprintJson(a)).toBe(
      '{"event":{"actions":[{"label":"Go","url":"https://e.x"}],"severity":"warn","title":"x"},"n":1.5,"none":null,"ok":true,"spec_version":"2"}',
    );
  });

  it('tells different bodies apart, including array order and value types', () => {
    expect(fingerprintJson({ a: [1, 2] })).not.toBe(fingerprintJson({ a: [2, 1] }));
    expect(fingerprintJson({ a: '1' })).not.toBe(fingerprintJson({ a: 1 }));
    expect(fingerprintJson({ a: null })).not.toBe(fingerprintJson({}));
  });

  it('numeric-looking keys and non-ASCII keys sort as strings (UTF-16 order), like the former form', () => {
    expect(fingerprintJson({ b: 1, 10: 2, 9: 3, é: 4, Z: 5 })).toBe('{"10":2,"9":3,"Z":5,"b":1,"é":4}');
    expect(fingerprintJson(undefined)).toBe('null');
  });
});
