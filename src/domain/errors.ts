// One closed error vocabulary. Every transport has a total mapper Record<ErrorKind, ...>,
// so adding a kind fails to compile until each surface handles it.

export const ERROR_KINDS = [
  'unauthenticated',
  'forbidden',
  'validation',
  'not_found',
  'conflict',
  'rate_limited',
  'payload_too_large',
  'unsupported_media_type',
  'length_required',
  'gone',
  'unprocessable',
  'unavailable',
  'internal',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** One validation problem; every issue of a request is reported at once. */
export interface Issue {
  /** Field path such as `actions[0].url`; empty string for the body itself. */
  field: string;
  /** Stable machine code, e.g. `required`, `too_long`, `forbidden_key`, `recipient_hint_required`. */
  code: string;
  /** Human-readable message. */
  message: string;
}

/** The five 401 codes of the spec (Authentication 3). */
export type AuthCode = 'missing_or_invalid_authorization' | 'invalid_token_format' | 'token_not_found' | 'token_mismatch' | 'token_revoked';

export interface RateLimitInfo {
  limit: number;
  remaining: number;
  /** Unix seconds when the window frees a slot. */
  resetAtUnix: number;
  /** Seconds to wait before retrying (429 only). */
  retryAfterSeconds?: number;
}

export interface DomainErrorOptions {
  /** Stable machine code (`token_revoked`, `schema_invalid`, `cross_project_blocked`...). */
  code?: string;
  issues?: Issue[];
  rateLimit?: RateLimitInfo;
  retryAfterSeconds?: number;
  /** Problem type slug under `{errors_base}/` for 422 bodies etc. */
  typeSlug?: string;
  /** Extra body members (e.g. `email`, `domain`, `blockers`). */
  extra?: Record<string, unknown>;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly issues: Issue[];
  readonly rateLimit?: RateLimitInfo;
  readonly retryAfterSeconds?: number;
  readonly typeSlug?: string;
  readonly extra: Record<string, unknown>;

  constructor(kind: ErrorKind, message: string, opts: DomainErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'DomainError';
    this.kind = kind;
    this.code = opts.code ?? kind;
    this.issues = opts.issues ?? [];
    this.rateLimit = opts.rateLimit;
    this.retryAfterSeconds = opts.retryAfterSeconds ?? opts.rateLimit?.retryAfterSeconds;
    this.typeSlug = opts.typeSlug;
    this.extra = opts.extra ?? {};
  }

  /** The same error carrying the caller's rate-limit state: every response of a rate-limited call has the headers. */
  withRateLimit(rateLimit: RateLimitInfo): DomainError {
    return new DomainError(this.kind, this.message, {
      code: this.code,
      issues: this.issues,
      rateLimit,
      retryAfterSeconds: this.retryAfterSeconds,
      typeSlug: this.typeSlug,
      extra: this.extra,
      cause: this.cause,
    });
  }
}

export const unauthenticated = (code: AuthCode, message: string) => new DomainError('unauthenticated', message, { code });

export const validationFailed = (issues: Issue[]) =>
  new DomainError('validation', issues.length === 1 ? issues[0]!.message : `${issues.length} validation issues`, {
    code: 'schema_invalid',
    issues,
  });

export const notFound = (what: string) => new DomainError('not_found', `${what} not found`, { code: 'not_found' });

export const forbidden = (message: string, code = 'forbidden') => new DomainError('forbidden', message, { code });

/** Stable error-class slug: the REST problem `type` is `{errors_base}/<slug>`; Connect sends it as ErrorInfo.type. */
const ERROR_TYPE_SLUGS: Record<ErrorKind, string> = {
  unauthenticated: 'unauthorized',
  forbidden: 'forbidden',
  validation: 'validation-failed',
  not_found: 'not-found',
  conflict: 'conflict',
  rate_limited: 'rate-limited',
  payload_too_large: 'payload-too-large',
  unsupported_media_type: 'unsupported-media-type',
  length_required: 'length-required',
  gone: 'gone',
  unprocessable: 'unprocessable',
  unavailable: 'service-unavailable',
  internal: 'internal',
};

export function errorTypeSlug(err: DomainError): string {
  if (err.typeSlug) return err.typeSlug;
  // Only the 409s of the Idempotency-Key state machine; idempotency_unavailable stays a 503.
  if (err.kind === 'conflict' && err.code.startsWith('idempotency_')) return 'idempotency-conflict';
  return ERROR_TYPE_SLUGS[err.kind];
}
