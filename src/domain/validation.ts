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
          out.push(
            Number(iss.minimum) === 1
              ? { field, code: 'required', message: 'must not be empty' }
              : { field, code: 'too_short', message: `must be at least ${iss.minimum} characters` },
          );
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

/**
 * C0 controls other than tab, line feed and carriage return, and unpaired UTF-16 surrogates. Never
 * stored (SPEC "Events": display text only): PostgreSQL refuses NUL and text that is not UTF-8, and
 * the other controls are invisible or terminal escapes in the places the text is shown.
 * A loop over code units: on the short strings of an event it is several times faster than a
 * regular expression (measured: ~1.6 -> ~0.5 µs for a whole event).
 */
export function hasUnsafeText(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20) {
      if (c !== 0x09 && c !== 0x0a && c !== 0x0d) return true;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // A high surrogate must be followed by a low one; a low one is only valid after a high one.
      if (c >= 0xdc00) return true;
      const next = s.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    }
  }
  return false;
}

const INVALID_CHARACTERS = 'must not contain control characters (other than tab and line breaks) or unpaired surrogates';

/** The fast pass: no allocation, stops at the first unsafe string. */
function isCleanText(value: unknown): boolean {
  if (typeof value === 'string') return !hasUnsafeText(value);
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isCleanText(value[i])) return false;
    return true;
  }
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (hasUnsafeText(k) || !isCleanText((value as Record<string, unknown>)[k])) return false;
  }
  return true;
}

function collectTextIssues(value: unknown, path: PropertyKey[], out: Issue[]): void {
  if (typeof value === 'string') {
    if (hasUnsafeText(value)) out.push({ field: fieldPath(path), code: 'invalid_characters', message: INVALID_CHARACTERS });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      collectTextIssues(v, [...path, i], out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (hasUnsafeText(k)) out.push({ field: fieldPath([...path, k]), code: 'invalid_characters', message: INVALID_CHARACTERS });
      collectTextIssues(v, [...path, k], out);
    }
  }
}

/**
 * Every string (value or object key) of an operation's input holding unsafe text, as
 * `invalid_characters` issues naming the field, in document order. Bodies reach here with their
 * nesting already bounded by the transports' parsers.
 */
export function textIssues(input: unknown): Issue[] {
  if (isCleanText(input)) return [];
  const out: Issue[] = [];
  collectTextIssues(input, [], out);
  return out;
}
