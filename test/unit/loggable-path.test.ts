// What of a request URL logs and trace attributes may carry (src/infra/loggable-path.ts).
import { describe, expect, it } from 'vitest';
import { loggablePath } from '../../src/infra/loggable-path.js';

describe('loggablePath', () => {
  it('drops the query string', () => {
    expect(loggablePath('/auth/oidc/callback?code=abc&state=xyz')).toBe('/auth/oidc/callback');
    expect(loggablePath('/api/v1/events?token=svc-in-pers-secret')).toBe('/api/v1/events');
  });
  it('replaces the one-time sign-in link secret, and only that segment', () => {
    expect(loggablePath('/auth/link/s3cr3t-value?next=/inbox')).toBe('/auth/link/[redacted]');
    expect(loggablePath('/auth/linked/abc')).toBe('/auth/linked/abc');
    expect(loggablePath('/inbox/0b6f2d9e-0000-4000-8000-000000000001')).toBe('/inbox/0b6f2d9e-0000-4000-8000-000000000001');
  });
  it('passes undefined through', () => {
    expect(loggablePath(undefined)).toBeUndefined();
  });
});
