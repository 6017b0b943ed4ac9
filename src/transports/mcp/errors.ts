// DomainError -> the agent protocol's two error channels (SPEC Errors "Agent protocol errors"):
//  1. a JSON-RPC error object (protocol-level failures: auth, scope, rate, input schema, internal),
//     with the HTTP status of the spec's table when it answers a lone request;
//  2. a tool-result error envelope inside result.content[0].text with isError true (the tool's
//     own failures: not found, business rules), flat {error: string} or structured
//     {error: {type, title, detail, field?}}.
// Total over ErrorKind: a new kind fails to compile until it is placed here.
import { errorTypeSlug, type DomainError, type ErrorKind } from '../../domain/errors.js';
import { setErrorHeaders } from '../http/response-headers.js';
import { httpStatus } from '../http/status.js';
import { RPC, RpcError } from './jsonrpc.js';

/**
 * Implementation-defined codes, from the -32000..-32019 range JSON-RPC leaves to servers (MCP
 * 2026-07-28 reserves -32020..-32099 for the protocol itself).
 */
export const MCP_CODES = {
  UNAUTHORIZED: -32001,
  FORBIDDEN: -32003,
  TOO_MANY_REQUESTS: -32005,
  /** MCP 2026-07-28: HTTP headers disagree with the body, or a required header is missing. */
  HEADER_MISMATCH: -32020,
  /** MCP 2026-07-28: the requested protocol version is not served here. */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

type Channel =
  /** A JSON-RPC error with this code and type name; HTTP status (lone request) from the one status table. */
  | { rpc: number; type: string; status?: number }
  /** Inside the tool result; `flat` is the TYPE prefix of the flat form, `structured` its type. */
  | { tool: true; flat: string; structured: string };

const CHANNELS: Record<ErrorKind, Channel> = {
  unauthenticated: { rpc: MCP_CODES.UNAUTHORIZED, type: 'UNAUTHORIZED' },
  // Only a missing scope is a protocol-level 403 (see channelOf); a tool's own refusal is its result.
  forbidden: { tool: true, flat: 'FORBIDDEN', structured: 'forbidden' },
  validation: { tool: true, flat: 'INVALID_INPUT', structured: 'validation_failed' },
  not_found: { tool: true, flat: 'NOT_FOUND', structured: 'not_found' },
  conflict: { tool: true, flat: 'CONFLICT', structured: 'conflict' },
  gone: { tool: true, flat: 'NOT_FOUND', structured: 'not_found' },
  unprocessable: { tool: true, flat: 'UNPROCESSABLE', structured: 'validation_failed' },
  rate_limited: { rpc: MCP_CODES.TOO_MANY_REQUESTS, type: 'TOO_MANY_REQUESTS' },
  payload_too_large: { rpc: RPC.INVALID_REQUEST, type: 'PAYLOAD_TOO_LARGE' },
  unsupported_media_type: { rpc: RPC.INVALID_REQUEST, type: 'UNSUPPORTED_MEDIA_TYPE' },
  length_required: { rpc: RPC.INVALID_REQUEST, type: 'LENGTH_REQUIRED' },
  unavailable: { rpc: RPC.INTERNAL_ERROR, type: 'INTERNAL_ERROR' },
  internal: { rpc: RPC.INTERNAL_ERROR, type: 'INTERNAL_ERROR' },
};

function channelOf(err: DomainError): Channel {
  if (err.kind === 'forbidden' && err.code === 'missing_scope') return { rpc: MCP_CODES.FORBIDDEN, type: 'FORBIDDEN' };
  // Input that fails the tool's schema is -32602 with data.field (SPEC "Agent protocol errors"), an
  // ordinary JSON-RPC answer (HTTP 200); a business rule the handler reports as `validation` stays
  // in the tool result.
  if (err.kind === 'validation' && err.code === 'schema_invalid') return { rpc: RPC.INVALID_PARAMS, type: 'INVALID_INPUT', status: 200 };
  return CHANNELS[err.kind];
}

/**
 * HTTP headers an error carries (the one writer of every surface): Retry-After and the X-RateLimit-*
 * budget; WWW-Authenticate on 401 and on a missing scope (403). `authorization` is the request's
 * header: a request without bearer credentials gets the challenge without an error code.
 */
export function errorHeaders(err: DomainError, authorization: string | undefined): Record<string, string | number> {
  const h: Record<string, string | number> = {};
  setErrorHeaders(
    (k, v) => {
      h[k] = v;
    },
    err,
    authorization,
  );
  return h;
}

/** The JSON-RPC error for a protocol-level failure. */
export function toRpcError(
  err: DomainError,
  authorization: string | undefined,
  ch: Extract<Channel, { rpc: number }> = channelOf(err) as Extract<Channel, { rpc: number }>,
): RpcError {
  const data: Record<string, unknown> = { type: ch.type, code: err.code };
  if (err.kind === 'forbidden') data.missing_scope = err.extra.required_scope;
  if (err.kind === 'validation' && err.issues.length > 0) {
    data.field = err.issues[0]!.field;
    data.errors = err.issues.map((i) => ({ field: i.field, code: i.code, message: i.message }));
  }
  if (err.retryAfterSeconds !== undefined) data.retryAfterSeconds = err.retryAfterSeconds;
  // Internal errors are answered generically; the cause was logged once by the runner.
  const message = err.kind === 'internal' ? 'Internal error; retry once' : err.message;
  return new RpcError(ch.rpc, message, data, ch.status ?? httpStatus(err), errorHeaders(err, authorization));
}

export type ToolErrorForm = 'flat' | 'structured';

/**
 * The error envelope a tool returns in its result text. An `error_envelope` the operation attached
 * (broadcast_event's operator hints) rides next to `error` in either form.
 */
export function toolErrorEnvelope(
  err: DomainError,
  form: ToolErrorForm,
  errorsBaseUrl: string,
): { error: string | Record<string, unknown>; error_envelope?: unknown } {
  const ch = CHANNELS[err.kind];
  const flat = 'tool' in ch ? ch.flat : 'INTERNAL_ERROR';
  const envelope = err.extra.error_envelope === undefined ? {} : { error_envelope: err.extra.error_envelope };
  // A fixed flat text even for a structured tool (SPEC C create_task: {error: 'project_slug is required'}).
  if (typeof err.extra.flat_error === 'string') return { error: err.extra.flat_error, ...envelope };
  if (form === 'flat') return { error: `${flat}: ${err.message}`, ...envelope };
  // Structured: 422 cases name their full problem URI; the rest one of the closed type names.
  const type = err.kind === 'unprocessable' && err.typeSlug ? `${errorsBaseUrl}/${errorTypeSlug(err)}` : 'tool' in ch ? ch.structured : 'internal';
  const genericCodes = new Set<string>([err.kind, 'schema_invalid', 'not_found', 'forbidden', 'conflict', 'internal']);
  const error: Record<string, unknown> = {
    type,
    // A specific machine code (e.g. `permission_denied`) is the title; otherwise a readable one.
    title: genericCodes.has(err.code) ? flat.toLowerCase().replace(/_/g, ' ') : err.code,
    detail: err.message,
  };
  const field = typeof err.extra.field === 'string' ? err.extra.field : err.issues[0]?.field;
  if (field) error.field = field;
  // 422 bodies keep their members (SPEC Errors: `email`, `domain`, `user_id`...): a caller may
  // treat user-already-exists as an idempotent hit.
  if (err.kind === 'unprocessable') for (const [k, v] of Object.entries(err.extra)) if (!(k in error) && k !== 'field') error[k] = v;
  return { error, ...envelope };
}

/**
 * How a DomainError from a tool call is answered. `authorization`: the POST's header (a tool call
 * runs only after the POST authenticated, so a bearer token was sent).
 */
export function classifyToolError(err: DomainError, authorization?: string): { kind: 'rpc'; error: RpcError } | { kind: 'tool' } {
  const ch = channelOf(err);
  return 'rpc' in ch ? { kind: 'rpc', error: toRpcError(err, authorization, ch) } : { kind: 'tool' };
}

/** A DomainError raised before any JSON-RPC message ran (authentication, body limits). */
export function wholeRequestError(err: DomainError, authorization: string | undefined): RpcError {
  const ch = channelOf(err);
  if ('rpc' in ch) return toRpcError(err, authorization, ch);
  // Not reachable from the request pipeline today (token_in_query is validation): a plain 400.
  return new RpcError(
    err.code === 'malformed_json' ? RPC.PARSE_ERROR : RPC.INVALID_REQUEST,
    err.message,
    { type: 'INVALID_REQUEST', code: err.code },
    400,
    errorHeaders(err, authorization),
  );
}
