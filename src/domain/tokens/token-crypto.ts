// Token material: random values with a fixed prefix; only SHA-256 hashes are stored (the value
// has full entropy, so a fast hash is enough), compared in constant time.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_PREFIX = {
  personal: 'svc-in-pers-',
  tools: 'svc-tools-',
  agent: 'sk-svc-',
} as const;

/** 32 URL-safe characters (24 random bytes, base64url). */
export function randomUrlSafe32(): string {
  return randomBytes(24).toString('base64url');
}

export function newTokenValue(prefix: string): string {
  return prefix + randomUrlSafe32();
}

/** One-shot hash (no Hash object per call: 0.4 instead of 0.9 µs, on every authenticated request). */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** Callback signing secret for webhook actions (hex, 64 chars). */
export function newSigningSecret(): string {
  return randomBytes(32).toString('hex');
}
