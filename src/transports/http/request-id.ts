import { randomFillSync } from 'node:crypto';
import { REQUEST_ID_CHARS, REQUEST_LIMITS } from '../../domain/request.limits.js';

const VALID = new RegExp(`^[${REQUEST_ID_CHARS}]{1,${REQUEST_LIMITS.requestIdMax}}$`);

// randomBytes() per request is one OpenSSL call (~4 µs here); ids are cut from a pool refilled
// 256 ids at a time instead (~0.2 µs; same 12 random bytes, same format).
const ID_BYTES = 12;
const pool = Buffer.alloc(ID_BYTES * 256);
let offset = pool.length;

function randomId(): string {
  if (offset + ID_BYTES > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return id;
}

/** Echo a valid X-Request-Id, else generate `req_<id>` (SPEC Limits). */
export function requestIdFrom(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return v !== undefined && VALID.test(v) ? v : `req_${randomId()}`;
}
