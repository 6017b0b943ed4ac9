// OpenAPI response conformance: checks one HTTP response against an OpenAPI 3.1
// document (status documented for the method + path, body valid against the schema of that status
// and content type, documented headers present and shaped) and a server's route table against the
// document (every route documented). Pure: no Fastify here; conformance-recorder.ts feeds it.
// Schemas compile lazily, once per document and pointer, on one Ajv (draft 2020-12) per document.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

// Ajv is loaded only when a schema has to be compiled: with a warm cache directory (one per test
// run, see ConformanceChecker) a test file evaluates the compiled validators and never loads it.
const require = createRequire(import.meta.url);
function newAjv(): Ajv2020 {
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = require('ajv-formats') as (ajv: Ajv2020) => void;
  // code.source: standalone code for the cache; optimize: false compiles ~40 % faster, and these
  // validators run a few hundred times per file.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false, code: { source: true, optimize: false } });
  addFormats(ajv);
  return ajv;
}

export type ViolationKind =
  | 'undocumented-status'
  | 'undocumented-content-type'
  | 'undocumented-body'
  | 'missing-body'
  | 'invalid-body'
  | 'missing-header'
  | 'invalid-header'
  | 'undocumented-route'
  | 'unserved-operation'
  | 'document';

export interface Violation {
  kind: ViolationKind;
  method: string;
  /** The documented path template (or the route / request path when none matches). */
  path: string;
  status?: number;
  /** What did not match, readable. */
  message: string;
}

export interface ObservedResponse {
  method: string;
  /** The path template as the server routed it (`/api/v1/events/:deliveryId`), if any. */
  route?: string;
  /** The request path (no query string). */
  url: string;
  status: number;
  /** Response headers, lower-case names. */
  headers: Record<string, string | number | string[] | undefined>;
  /** The body as sent; undefined when it was a stream (then only status and type are checked). */
  body: string | Buffer | null | undefined;
  streamed?: boolean;
}

export interface RouteDecl {
  method: string;
  url: string;
}

type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Operation {
  method: string;
  template: string;
  pointer: string;
  op: Json;
}

interface Compiled {
  /** Made on the first compile of this process. */
  ajv: Ajv2020 | null;
  validators: Map<string, ValidateFunction>;
}

// One Ajv per served document text, shared by every harness of the process.
const compiledByDoc = new Map<string, Compiled>();

let compiles = 0;
/** Forgets the validators compiled in this process (tests of the cache). */
export function clearCompiledValidators(): void {
  compiledByDoc.clear();
}
/** How many schemas this process compiled with Ajv (tests of the cache). */
export function compileCount(): number {
  return compiles;
}

/** `/a/{id}/b` and `/a/:id/b` -> `/a/{}/b`: templates compare without parameter names. */
export function templateKey(path: string): string {
  return (
    path
      .replace(/\{[^}/]+\}/g, '{}')
      .replace(/:[^/]+/g, '{}')
      .replace(/\/+$/, '') || '/'
  );
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}
/** A JSON pointer segment as it goes in a URI fragment (`{id}` percent-encoded). */
function escapePointer(s: string): string {
  return encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function mediaType(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  const s = Array.isArray(v) ? String(v[0]) : String(v);
  return s.split(';')[0]!.trim().toLowerCase() || undefined;
}

const ANNOTATIONS = new Set(['$ref', 'description', 'summary', 'title', 'examples', 'example', 'deprecated', '$comment']);
/** A schema that only points elsewhere (annotations aside): it validates exactly as its target. */
function isPureRef(node: any): node is { $ref: string } {
  return (
    !!node && typeof node === 'object' && typeof node.$ref === 'string' && node.$ref.startsWith('#/') && Object.keys(node).every((k) => ANNOTATIONS.has(k))
  );
}

function isJsonType(t: string): boolean {
  return t === 'application/json' || t.endsWith('+json');
}

function formatAjvErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return 'does not match';
  const seen = new Set<string>();
  const out: string[] = [];
  for (const e of errors) {
    const at = e.instancePath || '(root)';
    let msg: string;
    if (e.keyword === 'additionalProperties') msg = `${at}: member "${(e.params as { additionalProperty: string }).additionalProperty}" is not allowed`;
    else if (e.keyword === 'required') msg = `${at}: required member "${(e.params as { missingProperty: string }).missingProperty}" is missing`;
    else if (e.keyword === 'enum') msg = `${at}: ${e.message} (${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues).slice(0, 120)})`;
    else msg = `${at}: ${e.message}`;
    if (!seen.has(msg)) {
      seen.add(msg);
      out.push(msg);
    }
  }
  return out.slice(0, 6).join('; ') + (out.length > 6 ? `; … ${out.length - 6} more` : '');
}

export class ConformanceChecker {
  readonly doc: Json;
  private readonly compiled: Compiled;
  private readonly docId: string;
  /** Operations by `METHOD templateKey`. */
  private readonly operations = new Map<string, Operation>();
  /** Path templates by segment count, for matching a request path no route matched. */
  private readonly templates: { key: string; template: string; segments: string[]; params: number }[] = [];

  private readonly docHash: string;
  private readonly origin: string | undefined;
  /** Validators of schemas that name this document's server URL: this checker's own. */
  private own: { ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;
  private readonly cacheDir: string | undefined;

  /**
   * @param cacheDir where compiled validators are kept as standalone code, shared by the processes
   * of a test run (each test file is a process); without it they are compiled in this process.
   */
  constructor(docText: string, opts: { cacheDir?: string } = {}) {
    this.cacheDir = opts.cacheDir;
    this.doc = JSON.parse(docText) as Json;
    // Keyed with the server URL blanked out (it names each harness's port, in `servers` and links):
    // every service of the run serving the same paths and schemas shares the compiled validators.
    // A schema that itself names the URL is compiled apart (validatorOf).
    this.origin = typeof this.doc.servers?.[0]?.url === 'string' && this.doc.servers[0].url.length > 8 ? (this.doc.servers[0].url as string) : undefined;
    const normalized = this.origin ? docText.split(this.origin).join('\u0000server') : docText;
    const hash = createHash('sha256').update(normalized).digest('hex').slice(0, 16);
    this.docId = `openapi-${hash}.json`;
    this.docHash = hash;
    let compiled = compiledByDoc.get(hash);
    if (!compiled) {
      compiled = { ajv: null, validators: new Map() };
      compiledByDoc.set(hash, compiled);
    }
    this.compiled = compiled;
    // A server URL with a path (`https://host/base`) prefixes every path.
    const server = this.doc.servers?.[0]?.url as string | undefined;
    let base = '';
    if (server) {
      try {
        base = new URL(server, 'http://placeholder').pathname.replace(/\/+$/, '');
      } catch {
        base = '';
      }
    }
    for (const [p, item] of Object.entries<Json>(this.doc.paths ?? {})) {
      const [pathItem, itemPointer] = this.derefAt(item, `#/paths/${escapePointer(p)}`);
      const template = base + p;
      const key = templateKey(template);
      const segments = key.split('/');
      this.templates.push({ key, template, segments, params: segments.filter((s) => s === '{}').length });
      for (const m of METHODS) {
        if (pathItem?.[m])
          this.operations.set(`${m.toUpperCase()} ${key}`, { method: m.toUpperCase(), template, pointer: `${itemPointer}/${m}`, op: pathItem[m] });
      }
    }
    // Most specific first: fewer parameters win (`/items/new` before `/items/{slug}`).
    this.templates.sort((a, b) => a.params - b.params);
  }

  /** Resolves a local `$ref` (responses, headers, path items); schemas are left to Ajv. */
  private deref(node: any): any {
    return this.derefAt(node, '')[0];
  }

  /** The node a local `$ref` chain ends at, and that node's JSON pointer (`pointer` when no $ref). */
  private derefAt(node: any, pointer: string, depth = 0): [any, string] {
    if (!node || typeof node !== 'object' || typeof node.$ref !== 'string' || depth > 20) return [node, pointer];
    const ref: string = node.$ref;
    if (!ref.startsWith('#/')) return [node, pointer];
    return this.derefAt(this.at(ref), ref, depth + 1);
  }

  /**
   * The validator of the schema at `pointer`, compiled once per document. A schema that is only a
   * local `$ref` (`{"$ref": "#/components/schemas/Problem"}`, most responses) shares the
   * validator of its target.
   */
  private validator(pointer: string): ValidateFunction {
    let v = this.compiled.validators.get(pointer);
    if (!v) {
      let target = pointer;
      for (let node = this.at(pointer), hops = 0; isPureRef(node) && hops < 20; hops++) {
        target = node.$ref;
        node = this.at(target);
      }
      // Equal inline schemas (the same header schema under every response) share one validator too:
      // all of them resolve their references against the same document.
      const shape = `=${JSON.stringify(this.at(target))}`;
      if (this.origin && shape.includes(this.origin)) return this.ownValidator(target);
      v = this.compiled.validators.get(target) ?? this.compiled.validators.get(shape) ?? this.load(shape) ?? this.compile(target, shape);
      this.compiled.validators.set(target, v);
      this.compiled.validators.set(shape, v);
      this.compiled.validators.set(pointer, v);
    }
    return v;
  }

  private ownValidator(target: string): ValidateFunction {
    if (!this.own) {
      const ajv = newAjv();
      ajv.addSchema({ ...this.doc, $id: this.docId });
      this.own = { ajv, validators: new Map() };
    }
    let v = this.own.validators.get(target);
    if (!v) {
      v = this.own.ajv.compile({ $ref: `${this.docId}${target}` });
      compiles++;
      this.own.validators.set(target, v);
    }
    return v;
  }

  private cacheFile(shape: string): string | undefined {
    if (!this.cacheDir) return undefined;
    return path.join(this.cacheDir, `${this.docHash}-${createHash('sha256').update(shape).digest('hex').slice(0, 24)}.cjs`);
  }

  /** A validator another process of the run compiled, if any. */
  private load(shape: string): ValidateFunction | undefined {
    const file = this.cacheFile(shape);
    if (!file || !existsSync(file)) return undefined;
    try {
      const module = { exports: {} as { default?: ValidateFunction } };
      new Function('require', 'module', 'exports', readFileSync(file, 'utf8'))(require, module, module.exports);
      return module.exports.default ?? (module.exports as unknown as ValidateFunction);
    } catch {
      return undefined; // half-written or stale: compile instead
    }
  }

  private compile(target: string, shape: string): ValidateFunction {
    let ajv = this.compiled.ajv;
    if (!ajv) {
      ajv = this.compiled.ajv = newAjv();
      ajv.addSchema({ ...this.doc, $id: this.docId });
    }
    const v = ajv.compile({ $ref: `${this.docId}${target}` });
    compiles++;
    const file = this.cacheFile(shape);
    if (file) {
      try {
        const standalone = (require('ajv/dist/standalone/index.js') as { default: (ajv: Ajv2020, v: ValidateFunction) => string }).default;
        mkdirSync(path.dirname(file), { recursive: true });
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, standalone(ajv, v));
        renameSync(tmp, file); // atomic: a reader sees the whole file or none
      } catch {
        // no cache entry: the next process compiles again
      }
    }
    return v;
  }

  private at(pointer: string): any {
    let cur: any = this.doc;
    for (const part of pointer.slice(2).split('/')) cur = cur?.[unescapePointer(decodeURIComponent(part))];
    return cur;
  }

  /** The documented template a request path falls under (for requests no route matched). */
  matchPath(url: string): string | undefined {
    const segs = (url.split('?')[0]!.replace(/\/+$/, '') || '/').split('/');
    for (const t of this.templates) {
      if (t.segments.length !== segs.length) continue;
      if (t.segments.every((s, i) => (s === '{}' ? segs[i] !== '' : s === segs[i]))) return t.key;
    }
    return undefined;
  }

  /** The documented operation for a method and a route template or request path. */
  operationFor(method: string, routeOrUrl: string, isRoute: boolean): Operation | undefined {
    const key = isRoute ? templateKey(routeOrUrl) : this.matchPath(routeOrUrl);
    if (key === undefined) return undefined;
    return this.operations.get(`${method.toUpperCase()} ${key}`);
  }

  /** Violations of one response; [] when it conforms or is outside the document. */
  checkResponse(r: ObservedResponse): Violation[] {
    const method = r.method.toUpperCase();
    const op = r.route !== undefined ? this.operationFor(method, r.route, true) : this.operationFor(method, r.url, false);
    if (!op) return [];
    const out: Violation[] = [];
    const v = (kind: ViolationKind, message: string) => out.push({ kind, method, path: op.template, status: r.status, message });
    const responses: Json = op.op.responses ?? {};
    const status = String(r.status);
    const range = `${status[0]}XX`;
    const code =
      status in responses
        ? status
        : range in responses
          ? range
          : range.toLowerCase() in responses
            ? range.toLowerCase()
            : 'default' in responses
              ? 'default'
              : undefined;
    if (code === undefined) {
      v('undocumented-status', `status ${status} is not documented (documented: ${Object.keys(responses).join(', ') || 'none'})`);
      return out;
    }
    const [resp0, respPointer] = this.derefAt(responses[code], `${op.pointer}/responses/${escapePointer(code)}`);
    const resp: Json = resp0 ?? {};

    // Headers: required ones present, present ones shaped as their schema says.
    for (const [name, h0] of Object.entries<Json>(resp.headers ?? {})) {
      const lname = name.toLowerCase();
      if (lname === 'content-type') continue; // OpenAPI: ignored when listed
      const [h1, headerPointer] = this.derefAt(h0, `${respPointer}/headers/${escapePointer(name)}`);
      const h: Json = h1 ?? {};
      const raw = r.headers[lname];
      if (raw === undefined) {
        if (h.required === true) v('missing-header', `required header ${name} is missing`);
        continue;
      }
      if (!h.schema) continue;
      const value = this.coerceHeader(Array.isArray(raw) ? raw.join(', ') : String(raw), h.schema);
      const validate = this.validator(`${headerPointer}/schema`);
      if (!validate(value))
        v('invalid-header', `header ${name}: ${JSON.stringify(String(raw)).slice(0, 80)} ${formatAjvErrors(validate.errors).replace(/^\(root\): /, '')}`);
    }

    // Body.
    const content: Json = resp.content ?? {};
    const types = Object.keys(content);
    const type = mediaType(r.headers['content-type']);
    const empty = !r.streamed && (r.body === undefined || r.body === null || r.body.length === 0);
    if (empty) {
      if (types.length > 0 && method !== 'HEAD' && r.status !== 204 && r.status !== 304) v('missing-body', `no body, documented: ${types.join(', ')}`);
      return out;
    }
    if (types.length === 0) {
      v('undocumented-body', `a ${type ?? 'untyped'} body is sent, no content is documented for this status`);
      return out;
    }
    const key =
      type === undefined
        ? undefined
        : (types.find((t) => mediaType(t) === type) ??
          types.find((t) => t.endsWith('/*') && type.startsWith(t.slice(0, -1).toLowerCase())) ??
          types.find((t) => t === '*/*'));
    if (key === undefined) {
      v('undocumented-content-type', `content type ${type ?? '(none)'} is not documented (documented: ${types.join(', ')})`);
      return out;
    }
    if (r.streamed || !isJsonType(type!) || !content[key]?.schema) return out;
    let body: unknown;
    try {
      body = JSON.parse(typeof r.body === 'string' ? r.body : r.body!.toString('utf8'));
    } catch {
      v('invalid-body', `the ${type} body is not JSON`);
      return out;
    }
    const validate = this.validator(`${respPointer}/content/${escapePointer(key)}/schema`);
    if (!validate(body)) v('invalid-body', `${key} body: ${formatAjvErrors(validate.errors)}`);
    return out;
  }

  /** A header value as its schema's type (headers are text; `integer` means digits). */
  private coerceHeader(value: string, schema: Json): unknown {
    const s = this.deref(schema) ?? {};
    const t = Array.isArray(s.type) ? s.type : [s.type];
    if ((t.includes('integer') || t.includes('number')) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value.trim())) return Number(value);
    if (t.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
    if (t.includes('array')) return value.split(',').map((x) => x.trim());
    return value;
  }

  /**
   * Every route the server registered is documented (Connect RPC routes and Fastify's implicit
   * HEAD routes aside), and every documented operation is served.
   */
  checkRoutes(routes: RouteDecl[], isExempt: (r: RouteDecl) => boolean): Violation[] {
    const out: Violation[] = [];
    const served = new Set<string>();
    const gets = new Set(routes.filter((r) => r.method.toUpperCase() === 'GET').map((r) => templateKey(r.url)));
    // Undocumented methods per route path: one violation per path (`app.all` registers ~30 methods).
    const missing = new Map<string, string[]>();
    for (const r of routes) {
      const method = r.method.toUpperCase();
      const key = templateKey(r.url);
      served.add(`${method} ${key}`);
      if (isExempt(r)) continue;
      if (method === 'HEAD' && gets.has(key)) continue;
      // A method OpenAPI 3.1 has no field for (QUERY, SEARCH, … which `app.all` registers) cannot be documented.
      if (!(METHODS as readonly string[]).includes(method.toLowerCase())) continue;
      if (!this.operations.has(`${method} ${key}`)) missing.set(r.url, [...(missing.get(r.url) ?? []), method]);
    }
    for (const [url, methods] of missing) {
      const m = methods.length > 6 ? `ALL(${methods.length})` : methods.join('|');
      out.push({ kind: 'undocumented-route', method: m, path: url, message: 'served, but not in the document' });
    }
    for (const [k, op] of this.operations) {
      if (!served.has(k)) out.push({ kind: 'unserved-operation', method: op.method, path: op.template, message: 'documented, but no route serves it' });
    }
    return out;
  }
}

/** One readable line per violation. */
export function formatViolation(v: Violation, count = 1): string {
  return `${v.method} ${v.path}${v.status !== undefined ? ` -> ${v.status}` : ''} [${v.kind}] ${v.message}${count > 1 ? ` (x${count})` : ''}`;
}

/** Groups equal violations (same line) with their counts, in first-seen order. */
export function groupViolations(vs: Violation[]): { violation: Violation; count: number }[] {
  const groups = new Map<string, { violation: Violation; count: number }>();
  for (const v of vs) {
    const k = formatViolation(v);
    const g = groups.get(k);
    if (g) g.count++;
    else groups.set(k, { violation: v, count: 1 });
  }
  return [...groups.values()];
}

/** The error text a test file fails with in strict mode: grouped violations, at most `max` lines. */
export function describeViolations(vs: Violation[], max = 60): string {
  const groups = groupViolations(vs);
  const lines = groups.slice(0, max).map((g) => `  ${formatViolation(g.violation, g.count)}`);
  if (groups.length > max) lines.push(`  … ${groups.length - max} more`);
  return (
    `OpenAPI conformance: ${vs.length} response(s) or route(s) of this file's service do not match the document it serves ` +
    `(/api/v1/openapi.json; test/helpers/conformance.ts; CONFORMANCE=report lists them without failing):\n${lines.join('\n')}`
  );
}
