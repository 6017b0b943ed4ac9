// A tool result carries its output twice: as the text block (a JSON string holding the output's
// JSON text) and as the structured content (that JSON text as is). JSON.stringify of the text
// escapes the whole page a second time, which costs as much as making it. A tool on a hot path
// (list_inbox) writes its output by hand instead, both forms in one pass: the same text
// JSON.stringify makes of the output (key for key, tested), and that text escaped as the content
// of a JSON string (what JSON.stringify(text) puts between its quotes).

/** JSON text, and the same text escaped as the content of a JSON string (without the quotes). */
export interface JsonText {
  json: string;
  escaped: string;
}

const escapeText = (json: string): string => JSON.stringify(json).slice(1, -1);

/** A fixed piece of JSON text (punctuation, keys), escaped once when the module loads. */
export interface Fragment {
  readonly json: string;
  readonly escaped: string;
}

export const fragment = (json: string): Fragment => ({ json, escaped: escapeText(json) });

/**
 * Characters JSON.stringify writes as an escape in a string: `"`, `\`, control characters, and
 * surrogates (a lone one is escaped; a pair, which it keeps, goes the slow way too).
 */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** A string JSON.stringify writes as it is between its quotes (no escape in it). */
export const isPlain = (s: string): boolean => !NEEDS_ESCAPE.test(s);

export class JsonTextWriter {
  private json = '';
  private escaped = '';

  fragment(f: Fragment): this {
    this.json += f.json;
    this.escaped += f.escaped;
    return this;
  }

  /** Text already in both forms (`escaped` made by the caller, for strings that are isPlain). */
  pair(json: string, escaped: string): this {
    this.json += json;
    this.escaped += escaped;
    return this;
  }

  string(s: string): this {
    if (isPlain(s)) {
      this.json += `"${s}"`;
      this.escaped += `\\"${s}\\"`;
    } else {
      const j = JSON.stringify(s);
      this.json += j;
      this.escaped += escapeText(j);
    }
    return this;
  }

  stringOrNull(s: string | null): this {
    return s === null ? this.literal('null') : this.string(s);
  }

  number(n: number): this {
    return this.literal(Number.isFinite(n) ? String(n) : 'null');
  }

  boolean(b: boolean): this {
    return this.literal(b ? 'true' : 'false');
  }

  text(): JsonText {
    return { json: this.json, escaped: this.escaped };
  }

  /** Text the same in both forms (no `"` or `\`). */
  private literal(t: string): this {
    this.json += t;
    this.escaped += t;
    return this;
  }
}
