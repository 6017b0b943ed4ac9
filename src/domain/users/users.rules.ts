import type { Issue } from '../errors.js';
import { DomainError } from '../errors.js';

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/** ALLOWED_EMAIL_DOMAINS (unset = any) -> 422 domain-not-allowed with `email` and `domain`. */
export function assertDomainAllowed(email: string, allowed: readonly string[] | null): void {
  if (!allowed) return;
  const domain = emailDomain(email);
  if (!allowed.includes(domain)) {
    throw new DomainError('unprocessable', `email domain "${domain}" is outside the company allowlist`, {
      code: 'domain_not_allowed',
      typeSlug: 'domain-not-allowed',
      extra: { email, domain },
    });
  }
}

export type { Issue };
