// Token formats (SPEC Authentication 2-3): prefix + 32 URL-safe characters.
import type { AuthCode } from '../errors.js';

export type TokenFamily = 'inbound_personal' | 'tools' | 'agent';

const FORMATS: ReadonlyArray<[TokenFamily, RegExp]> = [
  ['inbound_personal', /^svc-in-pers-[A-Za-z0-9_-]{32}$/],
  ['tools', /^svc-tools-[A-Za-z0-9_-]{32}$/],
  ['agent', /^sk-svc-[A-Za-z0-9_-]{32}$/],
];

export type ParsedAuthorization = { ok: true; token: string; family: TokenFamily } | { ok: false; code: AuthCode; message: string };

/** `Authorization: Bearer <token>` with exactly one space; nothing else is accepted. */
export function parseAuthorization(header: string | undefined): ParsedAuthorization {
  if (header === undefined || header === '') return { ok: false, code: 'missing_or_invalid_authorization', message: 'missing Authorization header' };
  const m = /^Bearer ([^\s]+)$/.exec(header);
  if (!m) return { ok: false, code: 'missing_or_invalid_authorization', message: 'Authorization must be "Bearer <token>" with one space' };
  const token = m[1]!;
  for (const [family, re] of FORMATS) if (re.test(token)) return { ok: true, token, family };
  return { ok: false, code: 'invalid_token_format', message: 'the bearer value is not a fluxdesk token' };
}

/** Short non-secret prefix kept for display (admins see it, never the value). */
export function displayPrefix(token: string): string {
  const dash = token.lastIndexOf('-', token.length - 33);
  return token.slice(0, dash + 1 + 4);
}
