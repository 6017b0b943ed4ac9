import { randomBytes } from 'node:crypto';

const VALID = /^[A-Za-z0-9_-]{1,120}$/;

/** Echo a valid X-Request-Id, else generate `req_<id>` (SPEC Limits). */
export function requestIdFrom(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return v !== undefined && VALID.test(v) ? v : `req_${randomBytes(12).toString('base64url')}`;
}
