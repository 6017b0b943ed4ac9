// One declaration per HTTP route: the method, path, operation, success statuses
// and the error codes it can answer are written once; Fastify registers the route from it and the
// OpenAPI document (rest-v1/openapi.ts) describes it from the same object, so the two cannot drift.
// A handler stays thin: request -> operation input -> invoke -> status and body.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { z } from 'zod';
import type { AppDeps } from '../../app/deps.js';
import type { Channel, Operation, Surface } from '../../domain/context.js';
import type { ErrorKind } from '../../domain/errors.js';
import { invoke } from './invoke.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'TRACE';

/** A JSON body described by a zod schema, published once under `name` in `#/components/schemas`. */
export interface NamedSchema {
  name: string;
  schema: z.ZodType;
  /** Extra text on the component (e.g. a rule the schema cannot express). */
  description?: string;
}

/** A success answer: its status, and its body (a named zod schema, or a non-JSON media type). */
export interface SuccessDoc {
  status: number;
  description: string;
  body?: NamedSchema;
  /** Non-JSON bodies (markdown, HTML, Prometheus text): media type -> JSON Schema of the text. */
  media?: Record<string, Record<string, unknown>>;
  /** Response headers beyond the common ones (name -> description). */
  headers?: Record<string, string>;
}

/** The error codes a route answers beyond its pipeline's own (auth, limits, parsing, Idempotency-Key), per kind. */
export type ErrorCodes = Partial<Record<ErrorKind, readonly string[]>>;

export interface RouteDocBase {
  method: HttpMethod;
  /** OpenAPI template (`/api/v1/events/{deliveryId}`); Fastify gets `:deliveryId`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  deprecated?: boolean;
  /** `bearer`: Authorization: Bearer <token>; `none`: public. */
  security: 'bearer' | 'none';
  /** JSON request body. */
  body?: NamedSchema & { required: boolean };
  /** Query parameters: the properties of this schema (as the operation parses them). */
  query?: z.ZodObject;
  /** Path parameters: name -> JSON Schema. */
  params?: Record<string, Record<string, unknown>>;
  /** Request headers beyond the common ones (name -> description). */
  headers?: Record<string, string>;
  success: readonly SuccessDoc[];
  errors?: ErrorCodes;
  /** Runs before the body is read (e.g. requireContentLength: 411 on chunked bodies). */
  onRequest?: onRequestHookHandler;
  /** Error kinds the onRequest hook answers (documented with the route). */
  onRequestErrors?: ErrorCodes;
  /** OpenAPI responses written out (a surface with its own error envelope, e.g. JSON-RPC at /mcp). */
  rawResponses?: Record<string, unknown>;
}

/** A route that runs one operation through the runner. */
export interface OperationRoute<I = any, O = any> extends RouteDocBase {
  op: Operation<I, O, any>;
  /** The operation's input from the request (body, path parameters, query). */
  input: (req: FastifyRequest) => unknown;
  /** Success status; a function when the outcome decides it (202 created / 200 repeat). */
  status?: number | ((output: O) => number);
  /** The body sent from the output (default: the output itself). */
  reply?: (output: O, deps: AppDeps) => unknown;
  /** Fixed response headers on success (e.g. cache-control: no-store). */
  replyHeaders?: Record<string, string>;
}

/** A route answered without an operation (health, documents, probes). */
export interface HandlerRoute extends RouteDocBase {
  handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

/** A route registered elsewhere (its own plugin), documented from here. */
export interface DocumentedRoute extends RouteDocBase {
  documentedOnly: true;
  /** The operation it runs, when it runs one (its pipeline errors are documented). */
  op?: Operation<any, any, any>;
}

export type RouteDecl = OperationRoute | HandlerRoute | DocumentedRoute;

/** Infers I and O of an operation route from its operation (a table of routes is `RouteDecl[]`). */
export const route = <I, O>(r: OperationRoute<I, O>): OperationRoute<I, O> => r;

/** `/a/{id}/b` -> `/a/:id/b`. */
export const fastifyPath = (template: string): string => template.replace(/\{(\w+)\}/g, ':$1');

export interface Where {
  surface: Surface;
  channel?: Channel;
}

/** Registers every route of `routes` that is served by this plugin (not `documentedOnly`). */
export function registerRoutes(app: FastifyInstance, deps: AppDeps, routes: readonly RouteDecl[], where: Where): void {
  for (const r of routes) {
    if ('documentedOnly' in r) continue;
    const handler = 'handler' in r ? r.handler : operationHandler(deps, r, where);
    app.route({ method: r.method, url: fastifyPath(r.path), handler, ...(r.onRequest ? { onRequest: r.onRequest } : {}) });
  }
}

function operationHandler<I, O>(deps: AppDeps, r: OperationRoute<I, O>, where: Where) {
  const { op, input, status, reply: body, replyHeaders } = r;
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const { output } = await invoke(deps, op, req, reply, input(req), where);
    if (replyHeaders) reply.headers(replyHeaders);
    if (status !== undefined) reply.code(typeof status === 'number' ? status : status(output));
    return reply.send(body ? body(output, deps) : output);
  };
}

/** A query string as a plain object (Fastify's has no prototype). */
export const queryObject = (q: unknown): Record<string, unknown> => (q && typeof q === 'object' ? { ...(q as Record<string, unknown>) } : {});
