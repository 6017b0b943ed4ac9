// Breaking-change diff of two OpenAPI 3.1 documents (the released baseline and the one the service
// serves now). Written here because no well-kept offline npm tool handles 3.1 (openapi-diff and
// api-smart-diff stop at 3.0, Optic is archived, oasdiff has no npm build): see docs/api-evolution.md.
// A client of the baseline must keep working: what it may send must still be accepted (request side)
// and what it may receive must stay within what it was promised (response side).
import type { Finding } from './api-compat.exceptions.js';

type Json = Record<string, any>;
type Direction = 'request' | 'response';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const UPPER_BOUNDS = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'];
const LOWER_BOUNDS = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'];

export function diffOpenApi(base: Json, head: Json): Finding[] {
  const out: Finding[] = [];
  const report = (rule: string, where: string, message: string) => out.push({ check: 'openapi', rule, where, message, id: `openapi: ${rule} at ${where}` });
  const headOps = operations(head);
  for (const [key, b] of operations(base)) {
    const where = `${b.method.toUpperCase()} ${b.path}`;
    const h = headOps.get(key);
    if (!h) {
      report('operation-removed', where, `${where} is no longer served`);
      continue;
    }
    const cmp = new SchemaDiff(base, head, report);
    compareSecurity(where, b.op.security ?? base.security, h.op.security ?? head.security, report);
    compareParameters(cmp, where, b, h, report);
    compareRequestBody(cmp, where, deref(base, b.op.requestBody), deref(head, h.op.requestBody), report);
    compareResponses(cmp, where, b.op.responses ?? {}, h.op.responses ?? {}, report);
  }
  return out;
}

interface Operation {
  path: string;
  method: string;
  op: Json;
  params: Json[];
}

/** Operations keyed by method and template-insensitive path (renaming `{id}` to `{deliveryId}` is no break). */
function operations(doc: Json): Map<string, Operation> {
  const ops = new Map<string, Operation>();
  for (const [path, rawItem] of Object.entries<Json>(doc.paths ?? {})) {
    const item = deref(doc, rawItem) ?? {};
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      // Operation-level parameters override path-level ones with the same location and name.
      const params = new Map<string, Json>();
      for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])].map((x: Json) => deref(doc, x))) params.set(paramKey(p, path), p);
      ops.set(`${method} ${path.replace(/\{[^}]*\}/g, '{}')}`, { path, method, op, params: [...params.values()] });
    }
  }
  return ops;
}

/** Path parameters by position in the template (a rename is no break), headers case-insensitively. */
function paramKey(p: Json, path: string): string {
  if (p.in === 'path') return `path:#${[...path.matchAll(/\{([^}]*)\}/g)].findIndex((m) => m[1] === p.name)}`;
  return `${p.in}:${p.in === 'header' ? String(p.name).toLowerCase() : p.name}`;
}

function compareParameters(cmp: SchemaDiff, where: string, b: Operation, h: Operation, report: Report): void {
  const headParams = new Map(h.params.map((p) => [paramKey(p, h.path), p]));
  const baseKeys = new Set(b.params.map((p) => paramKey(p, b.path)));
  for (const bp of b.params) {
    const hp = headParams.get(paramKey(bp, b.path));
    const at = `${where} ${bp.in} parameter ${bp.name}`;
    // A header the service stops reading is ignored; a query or path parameter may be refused.
    if (!hp) {
      if (bp.in !== 'header') report('request-parameter-removed', at, `the ${bp.in} parameter "${bp.name}" was removed`);
      continue;
    }
    if (!bp.required && hp.required) report('request-parameter-became-required', at, `the ${bp.in} parameter "${bp.name}" became required`);
    cmp.compare(bp.schema, hp.schema, 'request', at, '$');
  }
  for (const hp of h.params) {
    if (!baseKeys.has(paramKey(hp, h.path)) && hp.required)
      report('request-parameter-added-required', `${where} ${hp.in} parameter ${hp.name}`, `a required ${hp.in} parameter "${hp.name}" was added`);
  }
}

/** Each way a client could authenticate (a security alternative, by scheme names) must still work. */
function compareSecurity(where: string, b: Json[] | undefined, h: Json[] | undefined, report: Report): void {
  const alts = (reqs: Json[] | undefined) => (reqs?.length ? reqs.map((r) => Object.keys(r).sort().join('+')) : ['']);
  const headAlts = alts(h);
  for (const alt of alts(b)) {
    if (!headAlts.includes(alt))
      report(
        'security-changed',
        `${where} security ${alt || '(none)'}`,
        alt ? `${where} no longer accepts ${alt} authentication` : `${where} now requires authentication (${headAlts.join(' or ')})`,
      );
  }
}

function compareRequestBody(cmp: SchemaDiff, where: string, b: Json | undefined, h: Json | undefined, report: Report): void {
  const at = `${where} request body`;
  if (!h) return;
  if (!b) {
    if (h.required) report('request-body-added-required', at, 'a required request body was added');
    return;
  }
  if (!b.required && h.required) report('request-body-became-required', at, 'the request body became required');
  for (const [media, bm] of Object.entries<Json>(b.content ?? {})) {
    const hm = h.content?.[media] as Json | undefined;
    if (!hm) report('request-media-type-removed', `${at} ${media}`, `the request body no longer accepts ${media}`);
    else cmp.compare(bm.schema, hm.schema, 'request', `${at} ${media}`, '$');
  }
}

function compareResponses(cmp: SchemaDiff, where: string, b: Json, h: Json, report: Report): void {
  for (const [status, rawB] of Object.entries<Json>(b)) {
    const at = `${where} response ${status}`;
    const br = cmp.derefBase(rawB);
    const hr = cmp.derefHead(h[status]);
    // An error status the service stops sending breaks no client (every client handles errors it
    // does not know); a success answer it stops sending does.
    if (!hr) {
      if (/^[23]/.test(status) || status === 'default') report('response-status-removed', at, `the ${status} response is no longer documented`);
      continue;
    }
    for (const name of Object.keys(br.headers ?? {})) {
      if (!Object.keys(hr.headers ?? {}).some((n) => n.toLowerCase() === name.toLowerCase()))
        report('response-header-removed', `${at} header ${name}`, `the response header ${name} was removed`);
    }
    for (const [media, bm] of Object.entries<Json>(br.content ?? {})) {
      const hm = hr.content?.[media] as Json | undefined;
      if (!hm) report('response-media-type-removed', `${at} ${media}`, `the ${status} response no longer comes as ${media}`);
      else cmp.compare(bm.schema, hm.schema, 'response', `${at} ${media}`, '$');
    }
  }
}

type Report = (rule: string, where: string, message: string) => void;

/** Resolves a local `$ref` (`#/components/...`), following chains. */
function deref(doc: Json, node: unknown): any {
  let n = node as Json | undefined;
  for (let i = 0; n && typeof n === 'object' && typeof n.$ref === 'string' && i < 32; i++) {
    if (!n.$ref.startsWith('#/')) throw new Error(`only local $ref is supported (got ${n.$ref})`);
    n = n.$ref
      .slice(2)
      .split('/')
      .map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((acc: any, key: string) => acc?.[key], doc);
  }
  return n;
}

class SchemaDiff {
  private readonly seen = new Set<string>();
  constructor(
    private readonly base: Json,
    private readonly head: Json,
    private readonly report: Report,
  ) {}

  derefBase = (n: unknown) => deref(this.base, n);
  derefHead = (n: unknown) => deref(this.head, n);

  compare(rawB: unknown, rawH: unknown, dir: Direction, where: string, ptr: string): void {
    // Past 64 levels only a self-referencing schema goes on; its own level was compared already.
    if (rawB === undefined || rawH === undefined || ptr.split(/[.[<{]/).length > 64) return;
    // Recursive schemas: compare each (base ref, head ref, direction) pair once.
    const refs = `${(rawB as Json)?.$ref ?? ''}|${(rawH as Json)?.$ref ?? ''}`;
    if (refs !== '|') {
      const key = `${refs}|${dir}|${where}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
    }
    const b = normalise(flattenAllOf(this.derefBase(rawB), this.derefBase));
    const h = normalise(flattenAllOf(this.derefHead(rawH), this.derefHead));
    const rep = (rule: string, message: string, at = ptr) => this.report(`${dir}-${rule}`, `${where} ${at}`, message);
    // Messages name the value: its JSON path, or at the top the parameter / body it is.
    const it = ptr === '$' ? where.replace(/^\S+ \S+ /, '') : ptr;
    if (b === false || h === true) return;
    if (b === true || h === false) {
      if (dir === 'request' && h === false) rep('schema-closed', `${it} accepts nothing any more`);
      return;
    }

    // Types: a request must still accept every type it did; a response must not start sending new ones.
    const bt = typesOf(b);
    const ht = typesOf(h);
    if (dir === 'request' && bt) {
      const lost = ht ? bt.filter((t) => !covers(ht, t)) : [];
      if (lost.length) rep('type-narrowed', `${it} no longer accepts ${lost.join(', ')} (now ${ht!.join(' | ')})`);
    }
    if (dir === 'response' && ht) {
      const gained = bt ? ht.filter((t) => !covers(bt, t)) : [];
      if (gained.length) rep('type-widened', `${it} may now be ${gained.join(', ')} (was ${bt!.join(' | ')})`);
    }

    // Enums (and const): a request must accept every value it did; a response must not send new ones.
    const be = enumOf(b);
    const he = enumOf(h);
    if (dir === 'request' && he) {
      if (!be) rep('enum-added', `${it} now accepts only ${he.map(show).join(', ')}`);
      else for (const v of be) if (!he.some((x) => same(x, v))) rep('enum-value-removed', `${it} no longer accepts ${show(v)}`);
    }
    if (dir === 'response' && be && he) {
      for (const v of he) if (!be.some((x) => same(x, v))) rep('enum-value-added', `${it} may now be ${show(v)}, which clients of the baseline do not know`);
    }

    // Bounds on what a client sends may only loosen.
    if (dir === 'request') {
      for (const k of UPPER_BOUNDS)
        if (typeof h[k] === 'number' && (typeof b[k] !== 'number' || h[k] < b[k]))
          rep('constraint-tightened', `${it}: ${k} is now ${h[k]} (was ${b[k] ?? 'unset'})`);
      for (const k of LOWER_BOUNDS)
        if (typeof h[k] === 'number' && (typeof b[k] !== 'number' || h[k] > b[k]))
          rep('constraint-tightened', `${it}: ${k} is now ${h[k]} (was ${b[k] ?? 'unset'})`);
      if (typeof h.pattern === 'string' && h.pattern !== b.pattern) rep('pattern-changed', `${it} must now match ${h.pattern} (was ${b.pattern ?? 'unset'})`);
    }

    this.compareObject(b, h, dir, where, ptr, rep);
    if (b.items !== undefined && h.items !== undefined) this.compare(b.items, h.items, dir, where, `${ptr}[]`);

    // Unions beyond "or null": same branch count -> compare in order; else report the side that hurts.
    for (const k of ['anyOf', 'oneOf'] as const) {
      const bb = b[k] as unknown[] | undefined;
      const hb = h[k] as unknown[] | undefined;
      if (!bb || !hb) continue;
      if (bb.length === hb.length)
        bb.forEach((x, i) => {
          this.compare(x, hb[i], dir, where, `${ptr}<${k}:${i}>`);
        });
      else if (dir === 'request' && hb.length < bb.length) rep('union-branch-removed', `${it} accepts ${hb.length} alternatives (was ${bb.length})`);
      else if (dir === 'response' && hb.length > bb.length) rep('union-branch-added', `${it} may take ${hb.length} shapes (was ${bb.length})`);
    }
  }

  private compareObject(b: Json, h: Json, dir: Direction, where: string, ptr: string, rep: (rule: string, message: string, at?: string) => void): void {
    const bp = (b.properties ?? {}) as Json;
    const hp = (h.properties ?? {}) as Json;
    const breq = new Set<string>(b.required ?? []);
    const hreq = new Set<string>(h.required ?? []);
    const closed = (s: Json) => s.additionalProperties === false || s.unevaluatedProperties === false;
    const child = (name: string) => (ptr === '$' ? `$.${name}` : `${ptr}.${name}`);
    for (const name of Object.keys(bp)) {
      if (!(name in hp)) {
        if (dir === 'response') rep('property-removed', `${child(name)} was removed from the response`, child(name));
        // A property the service no longer knows is refused only by a closed object.
        else if (closed(h)) rep('property-removed', `${child(name)} is no longer accepted (the object allows no other properties)`, child(name));
        continue;
      }
      if (dir === 'request' && !breq.has(name) && hreq.has(name)) rep('property-became-required', `${child(name)} became required`, child(name));
      if (dir === 'response' && breq.has(name) && !hreq.has(name))
        rep('property-became-optional', `${child(name)} may now be missing from the response`, child(name));
      this.compare(bp[name], hp[name], dir, where, child(name));
    }
    for (const name of Object.keys(hp)) {
      if (!(name in bp) && dir === 'request' && hreq.has(name)) rep('property-added-required', `${child(name)} was added as a required property`, child(name));
    }
    if (dir === 'request' && !closed(b) && closed(h) && (b.type === 'object' || b.properties))
      rep('object-closed', `${ptr === '$' ? where.replace(/^\S+ \S+ /, '') : ptr} no longer accepts properties it does not list`);
    const ba = b.additionalProperties;
    const ha = h.additionalProperties;
    if (ba && ha && typeof ba === 'object' && typeof ha === 'object') this.compare(ba, ha, dir, where, `${ptr}{}`);
  }
}

/**
 * `allOf` (a shared schema plus per-use additions, e.g. the problem body with its codes) as one
 * schema: properties and required lists joined, the narrowest bounds, types and enums intersected.
 * A property named in several parts keeps each part (`allOf` again, flattened when compared).
 */
function flattenAllOf(s: unknown, resolve: (n: unknown) => any): any {
  if (typeof s !== 'object' || s === null || !Array.isArray((s as Json).allOf)) return s;
  const { allOf, ...own } = s as Json;
  const parts = [own, ...(allOf as unknown[]).map((x) => flattenAllOf(resolve(x), resolve))].filter((x): x is Json => typeof x === 'object' && x !== null);
  const out: Json = {};
  for (const part of parts) {
    for (const [k, v] of Object.entries(part)) {
      if (k === 'properties') {
        out.properties ??= {};
        for (const [name, ps] of Object.entries<unknown>(v as Json)) out.properties[name] = name in out.properties ? { allOf: [out.properties[name], ps] } : ps;
      } else if (k === 'required') out.required = [...new Set([...(out.required ?? []), ...(v as string[])])];
      else if (k === 'type' && 'type' in out) {
        const keep = new Set(typesOf(part));
        out.type = (typesOf(out) ?? []).filter((t) => keep.has(t) || (t === 'number' && keep.has('integer')));
      } else if (k === 'enum' && Array.isArray(out.enum)) out.enum = out.enum.filter((x: unknown) => (v as unknown[]).some((y) => same(x, y)));
      else if (UPPER_BOUNDS.includes(k) && typeof out[k] === 'number') out[k] = Math.min(out[k], v as number);
      else if (LOWER_BOUNDS.includes(k) && typeof out[k] === 'number') out[k] = Math.max(out[k], v as number);
      else if (k === 'additionalProperties' && out[k] === false) continue;
      else if (!(k in out)) out[k] = v;
    }
  }
  return out;
}

/** Folds `anyOf: [X, {type: null}]` (how zod writes nullable) into X with "null" among its types. */
function normalise(s: unknown): any {
  if (typeof s !== 'object' || s === null) return s;
  const n = s as Json;
  for (const k of ['anyOf', 'oneOf'] as const) {
    const branches = n[k] as Json[] | undefined;
    if (!branches) continue;
    const isNull = (x: Json) => x?.type === 'null' && Object.keys(x).length === 1;
    const rest = branches.filter((x) => !isNull(x));
    if (rest.length === branches.length) continue;
    const { [k]: _drop, ...others } = n;
    if (rest.length === 1) {
      const one = rest[0]!;
      const t = typesOf(one);
      return { ...others, ...one, ...(t ? { type: [...t, 'null'] } : {}) };
    }
    return { ...others, [k]: [...rest, { type: 'null' }] };
  }
  return n;
}

function typesOf(s: Json): string[] | null {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type as string[];
  const branches = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (branches) {
    const all = branches.map((x) => typesOf(normalise(x)));
    if (all.every(Boolean)) return [...new Set(all.flatMap((x) => x!))];
  }
  return null;
}

const covers = (types: string[], t: string) => types.includes(t) || (t === 'integer' && types.includes('number'));
const enumOf = (s: Json): unknown[] | null => (Array.isArray(s.enum) ? s.enum : 'const' in s ? [s.const] : null);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const show = (v: unknown) => JSON.stringify(v);
