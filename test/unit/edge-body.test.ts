// The one JSON body decision of the HTTP edge (src/transports/http/json-body.ts readJsonBody), and
// how each surface answers it: REST problem+json, legacy {error}, MCP JSON-RPC. SPEC "Requirements
// for the inbound POST" (application/json; charset=utf-8; UTF-8 only), SPEC Errors, Limits.
import { describe, expect, it } from 'vitest';
import { contentTypeError, MAX_JSON_DEPTH, readJsonBody, type BodyRead } from '../../src/transports/http/json-body.js';
import { httpStatus } from '../../src/transports/http/status.js';
import { problemBody } from '../../src/transports/rest-v1/problem.js';
import { legacyBody } from '../../src/transports/legacy/errors.js';
import { parseBody, parsedFrom, RPC } from '../../src/transports/mcp/jsonrpc.js';
import { wholeRequestError } from '../../src/transports/mcp/errors.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const JSON_CT = 'application/json';

function refused(read: BodyRead) {
  expect(read.ok).toBe(false);
  if (read.ok) throw new Error('unreachable');
  return read.error;
}

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('Content-Type: application/json with no charset or charset=utf-8, everything else 415', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/json; charset="utf-8"',
    'APPLICATION/JSON ; CHARSET=Utf-8',
    'application/json; foo=bar',
    'application/json; charset=utf8',
  ])('%s is accepted', (ct) => {
    expect(contentTypeError(ct)).toBeNull();
    expect(readJsonBody(ct, bytes('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } });
  });

  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/vnd.api+json',
    'application/jsonx',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; charset=',
    'application/json; charset=utf-8; charset=latin1',
    '',
  ])('%j is 415 unsupported_media_type', (ct) => {
    const err = refused(readJsonBody(ct, bytes('{"a":1}')));
    expect(err).toMatchObject({ kind: 'unsupported_media_type', code: 'unsupported_media_type' });
    expect(httpStatus(err)).toBe(415);
  });

  it('a body without any Content-Type is 415; no body at all is no value (the operation decides)', () => {
    expect(refused(readJsonBody(undefined, bytes('{}')))).toMatchObject({ kind: 'unsupported_media_type' });
    expect(readJsonBody(undefined, undefined)).toEqual({ ok: true, value: undefined });
    expect(readJsonBody(undefined, new Uint8Array(0))).toEqual({ ok: true, value: undefined });
    expect(readJsonBody(JSON_CT, new Uint8Array(0))).toEqual({ ok: true, value: undefined });
    // A wrong media type is refused even when there is nothing to parse.
    expect(refused(readJsonBody('text/plain', new Uint8Array(0)))).toMatchObject({ kind: 'unsupported_media_type' });
  });
});

describe('the body: UTF-8, JSON, prototype keys, depth', () => {
  it('a UTF-8 byte order mark is dropped (RFC 8259 §8.1 allows ignoring it)', () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('{"t":"Ü"}')]);
    expect(readJsonBody(JSON_CT, withBom)).toEqual({ ok: true, value: { t: 'Ü' } });
  });

  it('non-ASCII UTF-8 is kept as sent', () => {
    expect(readJsonBody(JSON_CT, bytes('{"t":"Überweisung – 支付失败 🚀"}'))).toEqual({ ok: true, value: { t: 'Überweisung – 支付失败 🚀' } });
  });

  it.each([
    ['a stray continuation byte', [0x7b, 0x80, 0x7d]],
    ['a lead byte without its continuation', [0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]],
    ['an overlong encoding of "/"', [0x22, 0xc0, 0xaf, 0x22]],
    ['a UTF-16 surrogate encoded in UTF-8', [0x22, 0xed, 0xa0, 0x80, 0x22]],
    ['a truncated 4-byte sequence', [0x22, 0xf0, 0x9f, 0x98, 0x22]],
    ['latin1 bytes', [0x22, 0xe9, 0x22]],
  ])('%s is 400 malformed_json', (_name, b) => {
    const err = refused(readJsonBody(JSON_CT, new Uint8Array(b)));
    expect(err).toMatchObject({ kind: 'validation', code: 'malformed_json' });
    expect(err.issues).toEqual([{ field: '', code: 'malformed_json', message: 'body is not valid UTF-8' }]);
  });

  it.each(['{"a":', 'nope', '   ', '{"a":1}{"b":2}', "{'a':1}", '[1,]'])('%j is 400 malformed_json', (text) => {
    expect(refused(readJsonBody(JSON_CT, bytes(text)))).toMatchObject({ kind: 'validation', code: 'malformed_json' });
  });

  it.each(['{"__proto__":{"admin":true}}', '{"a":[{"__proto__":{}}]}', '{"constructor":{"prototype":{"admin":true}}}', '{"\\u005f_proto__":{}}'])(
    '%s is 400 forbidden_key',
    (text) => {
      expect(refused(readJsonBody(JSON_CT, bytes(text)))).toMatchObject({ kind: 'validation', code: 'forbidden_key' });
    },
  );

  it('a "constructor" key alone, or "prototype" alone, is ordinary data', () => {
    expect(readJsonBody(JSON_CT, bytes('{"constructor":"x","prototype":1}'))).toEqual({ ok: true, value: { constructor: 'x', prototype: 1 } });
  });

  it(`nesting: ${MAX_JSON_DEPTH} levels are accepted, ${MAX_JSON_DEPTH + 1} are 400 too_deep`, () => {
    expect(readJsonBody(JSON_CT, bytes(nested(MAX_JSON_DEPTH))).ok).toBe(true);
    expect(refused(readJsonBody(JSON_CT, bytes(nested(MAX_JSON_DEPTH + 1))))).toMatchObject({ kind: 'validation', code: 'too_deep' });
    const objects = `${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`;
    expect(refused(readJsonBody(JSON_CT, bytes(objects)))).toMatchObject({ code: 'too_deep' });
    // Far past the bound: refused, never a stack overflow.
    expect(refused(readJsonBody(JSON_CT, bytes(nested(100_000))))).toMatchObject({ kind: 'validation' });
  });
});

describe('one decision, each surface its own envelope', () => {
  const BAD: Array<[string, string | undefined, Uint8Array, string]> = [
    ['a latin1 charset', 'application/json; charset=latin1', bytes('{}'), 'unsupported_media_type'],
    ['text/plain', 'text/plain', bytes('{}'), 'unsupported_media_type'],
    ['invalid UTF-8', JSON_CT, new Uint8Array([0x7b, 0xff, 0x7d]), 'malformed_json'],
    ['broken JSON', JSON_CT, bytes('{"a":'), 'malformed_json'],
    ['a __proto__ key', JSON_CT, bytes('{"__proto__":{"x":1}}'), 'forbidden_key'],
    ['too deep', JSON_CT, bytes(nested(MAX_JSON_DEPTH + 1)), 'too_deep'],
  ];

  it.each(BAD)('%s: REST and legacy answer the same status and code; MCP -32700 (not JSON) or -32600 / HTTP 415', (_name, ct, body, code) => {
    const err = refused(readJsonBody(ct, body));
    expect(err.code).toBe(code);
    const status = code === 'unsupported_media_type' ? 415 : 400;
    // REST problem+json
    const problem = problemBody(err, 'https://errors.test', '/api/v1/events', 'req_1');
    expect(problem).toMatchObject({ status, code });
    // legacy {error, ...}
    expect(legacyBody(err)).toMatchObject({ error: code });
    expect(httpStatus(err)).toBe(status);
    // MCP: a body that is not JSON is a parse error; a refused media type an HTTP-level -32600.
    const read = readJsonBody(ct, body);
    if (code === 'unsupported_media_type') {
      const rpc = wholeRequestError(err, 'Bearer x');
      expect(rpc).toMatchObject({ code: RPC.INVALID_REQUEST, status: 415, data: { type: 'UNSUPPORTED_MEDIA_TYPE' } });
    } else {
      const parsed = parsedFrom(read);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error.code).toBe(RPC.PARSE_ERROR);
    }
  });

  it('MCP parseBody (a body sent as application/json) is the same decision', () => {
    expect(parseBody(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('[1]')]))).toEqual({ ok: true, value: [1] });
    for (const b of ['', '{"__proto__":{}}', nested(MAX_JSON_DEPTH + 1)]) {
      const r = parseBody(b);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe(RPC.PARSE_ERROR);
    }
  });
});
