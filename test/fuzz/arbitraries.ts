// Generators for the fuzz suite, derived from the service's own schemas: a small JSON Schema ->
// fast-check converter (the OpenAPI components and the MCP tools' inputSchema are produced from
// the operations' zod schemas), a protobuf-es descriptor -> message converter, and the hostile
// mutations (controls, surrogates, prototype keys, deep nesting, wrong types, size).
import fc from 'fast-check';
import { create, ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';

type Schema = Record<string, any>;

export interface GenContext {
  /** `$ref` targets: `#/components/schemas/X` and `#/$defs/X` are looked up here by their last segment. */
  defs?: Record<string, Schema>;
  /** The service clock (epoch ms): date-times are generated around it so some events are in the window. */
  now: () => number;
  /** Per property name: a state-dependent valid value (the caller's event prefix, an existing email). */
  hints?: Record<string, fc.Arbitrary<unknown>>;
}

const MAX_ITEMS = 4;

/** Strings that mostly pass, with some non-ASCII and any-code-point text mixed in. */
function plainString(min: number, max: number): fc.Arbitrary<string> {
  const hi = Math.max(min, Math.min(max, min + 24));
  return fc.oneof(
    { weight: 5, arbitrary: fc.string({ minLength: min, maxLength: hi, unit: 'grapheme-ascii' }) },
    { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: hi, unit: 'grapheme' }) },
    { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: hi, unit: 'binary' }) },
  );
}

function patternString(pattern: string, min: number, max: number): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(pattern)).filter((s) => s.length >= min && s.length <= max);
  } catch {
    return plainString(min, max);
  }
}

function dateTime(ctx: GenContext): fc.Arbitrary<string> {
  // Inside and just outside the (now - 24 h, now + 5 min) event window, with and without an offset.
  return fc.tuple(fc.integer({ min: -26 * 3600_000, max: 10 * 60_000 }), fc.constantFrom('Z', '+02:00', '-05:30')).map(([off, zone]) => {
    const d = new Date(ctx.now() + off);
    if (zone === 'Z') return d.toISOString();
    const sign = zone[0] === '+' ? 1 : -1;
    const [hh, mm] = zone.slice(1).split(':').map(Number);
    const local = new Date(d.getTime() + sign * (hh! * 60 + mm!) * 60_000);
    return local.toISOString().replace('Z', zone);
  });
}

function stringFor(s: Schema, ctx: GenContext): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? 200;
  if (s.format === 'date-time') return dateTime(ctx);
  if (s.format === 'uuid') return fc.uuid();
  if (s.format === 'email') return fc.emailAddress().filter((e) => e.length <= max);
  if (s.pattern) return patternString(s.pattern, min, max);
  if (s.format === 'uri') return fc.webUrl().filter((u) => u.length <= max);
  return plainString(min, max);
}

/** A JSON Schema (2020-12 subset that zod's toJSONSchema emits) -> values that mostly validate. */
export function arbFromSchema(schema: Schema | boolean | undefined, ctx: GenContext, depth = 0, key?: string): fc.Arbitrary<unknown> {
  if (key !== undefined && ctx.hints?.[key])
    return fc.oneof({ weight: 3, arbitrary: ctx.hints[key]! }, { weight: 1, arbitrary: arbFromSchema(schema, { ...ctx, hints: undefined }, depth) });
  if (schema === undefined || schema === true || (typeof schema === 'object' && Object.keys(schema).length === 0)) {
    return fc.jsonValue({ maxDepth: 2 });
  }
  if (schema === false) return fc.constant(null);
  const s = schema;
  if (s.$ref) {
    const name = String(s.$ref).split('/').pop()!;
    return arbFromSchema(ctx.defs?.[name], ctx, depth, key);
  }
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const alts = s.anyOf ?? s.oneOf;
  if (Array.isArray(alts)) return fc.oneof(...alts.map((a: Schema) => arbFromSchema(a, ctx, depth, undefined)));
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return arbFromSchema(Object.assign({}, ...s.allOf), ctx, depth, key);
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((t: string) => arbFromSchema({ ...s, type: t }, ctx, depth, undefined)));
  switch (s.type) {
    case 'string':
      return stringFor(s, ctx);
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -1000, -(2 ** 31)), max: Math.min(s.maximum ?? 1000, 2 ** 31 - 1) });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (depth > 6) return fc.constant([]);
      const minLength = s.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(s.maxItems ?? MAX_ITEMS, minLength + MAX_ITEMS));
      return fc.array(arbFromSchema(s.items, ctx, depth + 1), { minLength, maxLength });
    }
    default: {
      if (depth > 6) return fc.constant({});
      const props: Record<string, Schema> = s.properties ?? {};
      const required: string[] = (s.required ?? []).filter((k: string) => k in props);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, sub] of Object.entries(props)) model[k] = arbFromSchema(sub, ctx, depth + 1, k);
      const fixed = fc.record(model, { requiredKeys: required, noNullPrototype: true });
      const extra = s.additionalProperties;
      if (extra && typeof extra === 'object' && Object.keys(props).length === 0) {
        const keyArb = s.propertyNames ? (arbFromSchema({ type: 'string', ...s.propertyNames }, ctx, depth + 1) as fc.Arbitrary<string>) : plainString(1, 20);
        return fc.dictionary(keyArb, arbFromSchema(extra, ctx, depth + 1), { maxKeys: MAX_ITEMS, noNullPrototype: true });
      }
      return fixed;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile values.

/** Keys that are Object.prototype members or poison prototypes. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', 'isPrototypeOf', '__defineGetter__'] as const;

const c0 = fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c));
const loneSurrogate = fc.oneof(fc.integer({ min: 0xd800, max: 0xdbff }), fc.integer({ min: 0xdc00, max: 0xdfff })).map((c) => String.fromCharCode(c));

/** Text no store should keep or choke on: C0 controls and NUL, lone surrogates, odd Unicode, huge. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'a\u0000b',
    '\u0000',
    '\ud800',
    'x\udfff',
    '\udc00\ud800',
    '\u2028\u2029',
    '\ufeff',
    '\u202e',
    '%00',
    '\\u0000',
    "'; drop table users; --",
    '\u{1f600}'.repeat(50),
  ),
  fc.tuple(plainString(0, 8), fc.oneof(c0, loneSurrogate), plainString(0, 8)).map(([a, b, c]) => a + b + c),
  fc.integer({ min: 1, max: 3 }).map((k) => 'x'.repeat([300, 10_000, 70_000][k - 1]!)),
);

/** A value of a JSON type chosen at random (wrong for most fields). */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -0, '', '0', 'null', [], {}, [null], { '': '' }),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Nesting far past any sane depth, emitted as text by toJsonText (JSON.stringify would recurse). */
export class Deep {
  constructor(
    readonly depth: number,
    readonly kind: 'array' | 'object',
  ) {}
}
export const deepValue = fc
  .tuple(fc.integer({ min: 5_000, max: 12_000 }), fc.constantFrom('array' as const, 'object' as const))
  .map(([d, k]) => new Deep(d, k));

/** JSON text of a generated tree (own `__proto__` keys included, Deep expanded without recursion). */
export function toJsonText(v: unknown): string {
  if (v instanceof Deep) {
    const [open, close] = v.kind === 'array' ? ['[', ']'] : ['{"a":', '}'];
    return `${open.repeat(v.depth)}1${close.repeat(v.depth)}`;
  }
  if (v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(toJsonText).join(',')}]`;
  if (typeof v === 'bigint') return v.toString();
  if (v !== null && typeof v === 'object') {
    const parts: string[] = [];
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) parts.push(`${JSON.stringify(k)}:${toJsonText(x)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Sets an own enumerable property, even `__proto__`. */
export function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function clone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clone);
  if (v !== null && typeof v === 'object' && !(v instanceof Deep)) {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v)) setOwn(o, k, clone((v as Record<string, unknown>)[k]));
    return o;
  }
  return v;
}

type Path = Array<string | number>;
function containers(v: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (v !== null && typeof v === 'object' && !(v instanceof Deep)) {
    out.push(path);
    for (const k of Object.keys(v)) containers((v as any)[k], [...path, Array.isArray(v) ? Number(k) : k], out);
  }
  return out;
}
function leaves(v: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (v !== null && typeof v === 'object' && !(v instanceof Deep)) {
    for (const k of Object.keys(v)) leaves((v as any)[k], [...path, Array.isArray(v) ? Number(k) : k], out);
  } else if (path.length > 0) out.push(path);
  return out;
}
function getAt(v: any, p: Path): any {
  return p.reduce((o, k) => o?.[k], v);
}
function setAt(root: unknown, p: Path, value: unknown): unknown {
  if (p.length === 0) return value;
  const parent = getAt(root, p.slice(0, -1));
  const k = p[p.length - 1]!;
  if (Array.isArray(parent)) parent[k as number] = value;
  else setOwn(parent, String(k), value);
  return root;
}

export type Mutation =
  | { kind: 'hostile-text'; value: string }
  | { kind: 'wrong-type'; value: unknown }
  | { kind: 'proto-key'; key: string; value: unknown }
  | { kind: 'deep'; value: Deep }
  | { kind: 'drop-key' }
  | { kind: 'whole'; value: unknown };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: hostileString.map((value) => ({ kind: 'hostile-text' as const, value })) },
  { weight: 2, arbitrary: wrongType.map((value) => ({ kind: 'wrong-type' as const, value })) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        key: fc.constantFrom(...PROTO_KEYS),
        value: fc.oneof(fc.constant({}), fc.constant({ polluted: true }), fc.constant(1), fc.constant([]), fc.constant('x'), fc.constant(null)),
      })
      .map((r) => ({ kind: 'proto-key' as const, ...r })),
  },
  { weight: 1, arbitrary: deepValue.map((value) => ({ kind: 'deep' as const, value })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'drop-key' as const }) },
  { weight: 1, arbitrary: wrongType.map((value) => ({ kind: 'whole' as const, value })) },
);

/** Applies one mutation at a position picked by `pick` (a leaf for values, a container for keys). */
export function applyMutation(value: unknown, m: Mutation, pick: number): unknown {
  const v = clone(value);
  switch (m.kind) {
    case 'whole':
      return m.value;
    case 'proto-key': {
      const cs = containers(v).filter((p) => !Array.isArray(getAt(v, p)));
      if (cs.length === 0) return v;
      setOwn(getAt(v, cs[pick % cs.length]!), m.key, m.value);
      return v;
    }
    case 'drop-key': {
      const ls = leaves(v).filter((p) => typeof p[p.length - 1] === 'string');
      if (ls.length === 0) return v;
      const p = ls[pick % ls.length]!;
      delete getAt(v, p.slice(0, -1))[p[p.length - 1]!];
      return v;
    }
    default: {
      // Text goes where a string was when there is one; everything else at any leaf (or in an empty object).
      let ls = leaves(v);
      if (m.kind === 'hostile-text') {
        const strings = ls.filter((p) => typeof getAt(v, p) === 'string');
        if (strings.length > 0) ls = strings;
      }
      if (ls.length === 0) {
        const cs = containers(v).filter((p) => !Array.isArray(getAt(v, p)));
        if (cs.length === 0) return m.value;
        setOwn(getAt(v, cs[pick % cs.length]!), 'x', m.value);
        return v;
      }
      return setAt(v, ls[pick % ls.length]!, m.value);
    }
  }
}

/** `base` as is (about a third) or with one to three mutations. */
export function withMutations(base: fc.Arbitrary<unknown>): fc.Arbitrary<{ value: unknown; mutations: Mutation[] }> {
  return fc.oneof(
    { weight: 1, arbitrary: base.map((value) => ({ value, mutations: [] as Mutation[] })) },
    {
      weight: 2,
      arbitrary: fc.tuple(base, fc.array(fc.tuple(mutation, fc.nat()), { minLength: 1, maxLength: 3 })).map(([value, ms]) => ({
        value: ms.reduce((acc, [m, pick]) => applyMutation(acc, m, pick), value),
        mutations: ms.map(([m]) => m),
      })),
    },
  );
}

/** Percent-encoding that keeps lone surrogates as their (invalid) three UTF-8 bytes instead of throwing. */
export function encodeLoose(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff)
      out += [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    else out += encodeURIComponent(ch);
  }
  return out;
}

/** A query string from named parameter arbitraries plus hostile keys, bad escapes and repeats. */
export function queryString(params: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<string> {
  const entry = (k: string, v: unknown) => `${encodeLoose(k)}=${encodeLoose(typeof v === 'string' ? v : toJsonText(v))}`;
  const known = fc.record(params, { requiredKeys: [], noNullPrototype: true }).map((o) => Object.entries(o).map(([k, v]) => entry(k, v)));
  const hostile = fc.array(
    fc.oneof(
      fc
        .tuple(fc.constantFrom(...PROTO_KEYS, '__proto__[x]', 'constructor[prototype][x]'), fc.constantFrom('1', 'x', ''))
        .map(([k, v]) => `${encodeLoose(k)}=${v}`),
      fc.constantFrom(
        '%00=1',
        'a=%00',
        'a=%zz',
        '%ff=%fe',
        'a=%ED%A0%80',
        'limit=1&limit=2',
        '=',
        '&&',
        'a',
        'limit=-1',
        'limit=1e400',
        'hard=maybe',
        'active_only=2',
      ),
      // Under Node's 16 KB header limit, so the service (not the HTTP parser) answers.
      fc
        .tuple(
          fc.constantFrom(...Object.keys(params), 'x'),
          hostileString.filter((s) => s.length < 4000),
        )
        .map(([k, v]) => entry(k, v)),
    ),
    { maxLength: 3 },
  );
  return fc.tuple(known, hostile).map(([a, b]) => [...a, ...b].join('&'));
}

// ---------------------------------------------------------------------------------------------
// Protobuf messages from the generated descriptors (protobuf-es 2).

/** Property name -> JSON Schema, from every schema the service publishes (hints for proto strings). */
export type SchemaIndex = Map<string, Schema>;

export function indexSchemas(schemas: Schema[], defs: Record<string, Schema>, index: SchemaIndex = new Map()): SchemaIndex {
  const visit = (s: Schema | undefined, depth: number) => {
    if (!s || typeof s !== 'object' || depth > 6) return;
    if (s.$ref) return visit(defs[String(s.$ref).split('/').pop()!], depth + 1);
    for (const [k, sub] of Object.entries<Schema>(s.properties ?? {})) {
      if (!index.has(k)) index.set(k, sub);
      visit(sub, depth + 1);
    }
    if (s.items) visit(s.items, depth + 1);
    for (const a of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) visit(a, depth + 1);
  };
  for (const s of schemas) visit(s, 0);
  return index;
}

function scalarArb(t: ScalarType): fc.Arbitrary<unknown> {
  switch (t) {
    case ScalarType.STRING:
      return plainString(0, 30);
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.BYTES:
      return fc.uint8Array({ maxLength: 32 });
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return fc.oneof(fc.double(), fc.constantFrom(0, -1, 1e300, Number.NaN));
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -5n, max: 500n }));
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: 0n, max: 500n }));
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return fc.oneof(
        fc.integer({ min: 0, max: 500 }),
        fc.nat().map((n) => n >>> 0),
      );
    default:
      return fc.oneof(fc.integer({ min: -5, max: 500 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
  }
}

export interface ProtoGen {
  index: SchemaIndex;
  ctx: GenContext;
}

function fieldValue(f: DescField, g: ProtoGen, depth: number): fc.Arbitrary<unknown> {
  const stringish = (): fc.Arbitrary<unknown> => {
    const hint = g.index.get(f.name);
    const valid =
      hint && (hint.type === 'string' || hint.format || hint.enum || hint.anyOf)
        ? arbFromSchema(hint, g.ctx, 2, f.name).map((v) => (typeof v === 'string' ? v : String(v ?? '')))
        : plainString(0, 30);
    return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: hostileString });
  };
  const one = (
    kind: 'scalar' | 'enum' | 'message',
    scalar?: ScalarType,
    en?: { values: Array<{ number: number }> },
    msg?: DescMessage,
  ): fc.Arbitrary<unknown> => {
    if (kind === 'enum')
      return fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...en!.values.map((v) => v.number)) },
        { weight: 1, arbitrary: fc.integer({ min: -3, max: 999 }) },
      );
    if (kind === 'message') return depth > 3 ? fc.constant(undefined) : messageInit(msg!, g, depth + 1);
    return scalar === ScalarType.STRING ? stringish() : scalarArb(scalar!);
  };
  switch (f.fieldKind) {
    case 'scalar':
      return one('scalar', f.scalar);
    case 'enum':
      return one('enum', undefined, f.enum);
    case 'message':
      return one('message', undefined, undefined, f.message);
    // Past the nesting depth a message element is undefined (above): an empty list or map then, never a
    // filter that could only reject (fc's filter would retry forever, synchronously: the fuzz file
    // then hung in a loop no test timeout could interrupt).
    case 'list':
      if (f.listKind === 'message' && depth > 3) return fc.constant([]);
      return fc.array(
        one(f.listKind, f.scalar, f.enum, f.message).filter((x) => x !== undefined),
        { maxLength: 3 },
      );
    case 'map': {
      if (f.mapKind === 'message' && depth > 3) return fc.constant({});
      const keyArb =
        f.mapKey === ScalarType.STRING
          ? fc.oneof(plainString(1, 12), fc.constantFrom(...PROTO_KEYS))
          : scalarArb(f.mapKey).map((k) => (typeof k === 'bigint' ? k.toString() : k));
      return fc.dictionary(
        keyArb as fc.Arbitrary<string>,
        one(f.mapKind, f.scalar, f.enum, f.message).filter((x) => x !== undefined),
        { maxKeys: 3, noNullPrototype: true },
      );
    }
  }
}

/** An init object for `create(desc, init)`: each field present or not, oneofs with one case set. */
export function messageInit(desc: DescMessage, g: ProtoGen, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of desc.fields) if (!f.oneof) model[f.localName] = fieldValue(f, g, depth);
  for (const o of desc.oneofs) {
    model[o.localName] = fc.oneof(fc.constant(undefined), ...o.fields.map((f) => fieldValue(f, g, depth).map((value) => ({ case: f.localName, value }))));
  }
  return fc.record(model, { requiredKeys: [], noNullPrototype: true }).map((o) => {
    for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
    return o;
  });
}

export const protoMessage = (desc: DescMessage, g: ProtoGen) => messageInit(desc, g).map((init) => create(desc, init as any));

/** Bytes that are not a valid encoding of most messages: random, truncated varints, bad wire types, huge lengths, invalid UTF-8. */
export const garbageProtobuf: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 64 }),
  fc.constantFrom(
    Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), // field 1, length 4 GiB
    Uint8Array.from([0x0a, 0x05, 0xc3, 0x28, 0xa0, 0xa1, 0xff]), // invalid UTF-8 in a string/message
    Uint8Array.from([0x0a, 0x03, 0xed, 0xa0, 0x80]), // encoded lone surrogate
    Uint8Array.from([0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), // varint > 64 bits
    Uint8Array.from([0x0f]), // wire type 7
    Uint8Array.from([0x0b, 0x0b, 0x0b]), // unterminated groups
    Uint8Array.from([0x00]), // field number 0
    Uint8Array.from([0x12]), // tag without payload
  ),
  fc
    .tuple(fc.integer({ min: 1, max: 20 }), fc.uint8Array({ minLength: 1, maxLength: 16 }))
    .map(([field, bytes]) => Uint8Array.from([(field << 3) | 2, bytes.length, ...bytes.map((b) => b | 0x80)])),
);
