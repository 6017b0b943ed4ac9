// Maps schema issues to the domain's Issue list (one list feeds fieldErrors, errors[], the
// legacy errors[] and Connect error details).
import type { z } from 'zod';
import type { Issue } from './errors.js';

export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

function describeType(expected: string): string {
  return expected === 'object' ? 'an object' : expected === 'array' ? 'an array' : `a ${expected}`;
}

export interface KeyPolicy {
  /** Keys always refused with `forbidden_key` (sensitive content never stored). */
  forbidden?: ReadonlySet<string>;
  /** Known legacy keys refused with `legacy_key` and a hint. */
  legacy?: ReadonlyMap<string, string>;
  /** Path of the object the policy applies to ('' = the body itself; `event` in a bulk request). */
  at?: string;
}

/** A missing value. Parse with `reportInput: true` (as the runner does) so issues carry their input. */
function isMissing(iss: z.core.$ZodIssue): boolean {
  return !('input' in iss) || iss.input === undefined;
}

export function zodToIssues(error: z.ZodError, policy: KeyPolicy = {}): Issue[] {
  const out: Issue[] = [];
  for (const iss of error.issues) {
    const field = fieldPath(iss.path);
    switch (iss.code) {
      case 'unrecognized_keys':
        for (const key of iss.keys) {
          const f = field ? `${field}.${key}` : key;
          const legacyHint = policy.legacy?.get(key);
          if (field === (policy.at ?? '') && policy.forbidden?.has(key)) {
            out.push({ field: f, code: 'forbidden_key', message: `"${key}" is not accepted: the service never stores content, secrets or prompts` });
          } else if (legacyHint) {
            out.push({ field: f, code: 'legacy_key', message: legacyHint });
          } else {
            out.push({ field: f, code: 'unknown_key', message: `unknown field "${key}"` });
          }
        }
        break;
      case 'invalid_type':
        if (isMissing(iss)) out.push({ field, code: 'required', message: 'is required' });
        else out.push({ field, code: 'invalid_type', message: `must be ${describeType(iss.expected)}` });
        break;
      case 'too_big':
        if (iss.origin === 'string') out.push({ field, code: 'too_long', message: `must be at most ${iss.maximum} characters` });
        else if (iss.origin === 'array' || iss.origin === 'set') out.push({ field, code: 'too_many', message: `must have at most ${iss.maximum} items` });
        else out.push({ field, code: 'too_big', message: `must be at most ${iss.maximum}` });
        break;
      case 'too_small':
        if (iss.origin === 'string') {
          out.push(Number(iss.minimum) === 1 ? { field, code: 'required', message: 'must not be empty' } : { field, code: 'too_short', message: `must be at least ${iss.minimum} characters` });
        } else if (iss.origin === 'array' || iss.origin === 'set') out.push({ field, code: 'too_few', message: `must have at least ${iss.minimum} items` });
        else out.push({ field, code: 'too_small', message: `must be at least ${iss.minimum}` });
        break;
      case 'invalid_value':
        // An absent enum value is `required` (only known when the issue carries its input).
        if ('input' in iss && iss.input === undefined) out.push({ field, code: 'required', message: 'is required' });
        else out.push({ field, code: 'invalid_enum', message: `must be one of: ${iss.values.map(String).join(', ')}` });
        break;
      case 'invalid_format':
        out.push({ field, code: 'invalid_format', message: iss.message && !iss.message.startsWith('Invalid') ? iss.message : `must be a valid ${iss.format}` });
        break;
      case 'custom': {
        const code = typeof iss.params?.code === 'string' ? iss.params.code : 'invalid';
        out.push({ field, code, message: iss.message });
        break;
      }
      default:
        out.push({ field, code: 'invalid', message: iss.message });
    }
  }
  return out;
}
