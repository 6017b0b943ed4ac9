// Errors of the feedback tools. Both write tools answer in the structured form
// ({error: {type, title, detail, field?}}, SPEC Errors), so each names its field.
import { DomainError } from '../errors.js';
import { FEEDBACK_LIMITS } from './feedback.limits.js';

/** Length in characters (Unicode code points, so an emoji counts once). */
export const charLength = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * SPEC C create_feedback / Limits: a body over FEEDBACK_LIMITS.bodyMax characters is rejected, never truncated.
 * A tool-result error (structured validation_failed, title body_too_long, field body), not a
 * JSON-RPC -32602: these two tools report their rule failures in the structured envelope.
 */
export function assertBodyLength(body: string, max: number = FEEDBACK_LIMITS.bodyMax): void {
  const n = charLength(body);
  if (n > max) {
    const message = `body is ${n} characters; at most ${max} are accepted (nothing was stored; shorten it, it is never truncated)`;
    throw new DomainError('validation', message, { code: 'body_too_long', issues: [{ field: 'body', code: 'too_long', message }], extra: { field: 'body' } });
  }
}

export const feedbackNotFound = (field: string): DomainError => new DomainError('not_found', 'feedback not found', { code: 'not_found', extra: { field } });
