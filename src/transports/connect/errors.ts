// DomainError -> ConnectError with ErrorInfo (stable code) and, for invalid_argument, every
// validation issue as a ValidationErrorDetail. Total over ErrorKind.
import { Code, ConnectError } from '@connectrpc/connect';
import { ErrorInfoSchema, ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { errorTypeSlug, type DomainError, type ErrorKind } from '../../domain/errors.js';
import { setRateLimitHeaders } from '../http/response-headers.js';

const CODES: Record<ErrorKind, Code> = {
  unauthenticated: Code.Unauthenticated,
  forbidden: Code.PermissionDenied,
  validation: Code.InvalidArgument,
  not_found: Code.NotFound,
  conflict: Code.Aborted,
  rate_limited: Code.ResourceExhausted,
  payload_too_large: Code.ResourceExhausted,
  unsupported_media_type: Code.InvalidArgument,
  length_required: Code.InvalidArgument,
  gone: Code.Unimplemented,
  unprocessable: Code.FailedPrecondition,
  unavailable: Code.Unavailable,
  internal: Code.Internal,
};

/**
 * Issue paths in proto terms (errors.proto FieldViolation): dotted, zero-based list indexes, under
 * the request field that carries the input (`actions[2].url` -> `event.actions.2.url`).
 */
export function protoFieldPath(field: string, under?: string): string {
  const dotted = field.replace(/\[(\d+)\]/g, '.$1');
  if (!under || dotted === '') return dotted;
  return `${under}.${dotted}`;
}

/**
 * gRPC carries the message and the details in trailers (HTTP/2 headers, which peers cap at 8-64 KB):
 * texts that may echo the caller's input (a field name, a map key) are bounded, and so is the
 * number of violations, so an error never outgrows the headers a client accepts.
 */
const MAX_MESSAGE = 1_000;
const MAX_FIELD = 200;
const MAX_VIOLATIONS = 50;
const bounded = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max)}…`);

export function toConnectError(err: DomainError, inputField?: string): ConnectError {
  const metadata = new Headers();
  setRateLimitHeaders((k, v) => metadata.set(k, String(v)), err.rateLimit, err.retryAfterSeconds);
  const details: ConstructorParameters<typeof ConnectError>[3] = [
    {
      desc: ErrorInfoSchema,
      value: {
        code: err.code,
        type: errorTypeSlug(err),
        metadata: Object.fromEntries(Object.entries(err.extra).map(([k, v]) => [k, bounded(typeof v === 'string' ? v : JSON.stringify(v), MAX_MESSAGE)])),
      },
    },
  ];
  if (err.issues.length > 0) {
    const violations = err.issues
      .slice(0, MAX_VIOLATIONS)
      .map((i) => ({ field: bounded(protoFieldPath(i.field, inputField), MAX_FIELD), code: i.code, message: bounded(i.message, MAX_FIELD) }));
    details.push({ desc: ValidationErrorDetailSchema, value: { violations } });
  }
  // Internal errors are answered generically; the cause was logged once by the runner.
  const message = err.kind === 'internal' ? 'internal error; retry' : bounded(err.message, MAX_MESSAGE);
  return new ConnectError(message, CODES[err.kind], metadata, details);
}
