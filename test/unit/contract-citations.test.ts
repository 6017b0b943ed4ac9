// Every `SPEC <section>` citation in the repository names a heading (or a numbered item under a
// heading) of docs/contract.md, the project's own statement of the interface contract, so a
// citation cannot outlive the section it names. The citation forms: "Resolving a clause" below.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONTRACT_FILE = 'docs/contract.md';
const SELF = 'test/unit/contract-citations.test.ts';
/** Where citations live: sources, tests, proto comments, the web app, scripts, benches and the docs (the contract's own examples too). */
const SCANNED = ['src', 'test', 'proto', 'web/src', 'scripts', 'bench', 'docs', 'README.md'];
const SOURCE_FILE = /\.(?:ts|tsx|mts|js|mjs|cjs|proto|md)$/;

/** `SPEC` as a word: not SPEC_SCOPES, not UNSPECIFIED, not the file name SPEC.md. */
const SPEC_WORD = /(?<![\w-])SPEC(?![\w-]|\.md)/g;
/**
 * After SPEC, a sentence about the contract rather than a section name ("SPEC's https rule",
 * "SPEC: a ...", "the SPEC spells them"), or the notation itself (`SPEC <section>`).
 */
const PROSE = /^(?:'s\b|\s*\(|:\s*[a-z`(]|\s+(?:spells|must|keeps)\b|\s+<)/;

/** Case, spacing, code marks, bold marks and table bars do not matter. */
const norm = (s: string): string =>
  s
    .replace(/`|\*\*|\|/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

// ---------------------------------------------------------------------------------------------
// The contract's headings, items and text.

interface Section {
  title: string;
  names: string[];
  letter?: string;
  parent?: Section;
  /** Numbered items of its own body, else of its subsections. */
  items: Set<number>;
  /** The section's text with its subsections, normalised (for phrases). */
  text: string;
}

interface Contract {
  sections: Section[];
  /** Bold item labels (`9. **Discovery.**`) -> the section and item number. */
  labels: Map<string, Array<{ section: Section; item: number }>>;
}

const ITEM = /^(\d+)\.\s+(?:\*\*([^*]+)\*\*)?/;
/** "inbound protocol 9", "agent protocol 15": sections of the served protocol texts, not of the contract. */
const SERVED_TEXT = /^(?:inbound|agent) protocol\b/;

function headingNames(title: string): { names: string[]; letter?: string } {
  const t = norm(title);
  const names = new Set([t]);
  const letter = /^([a-z])\. (.*)$/.exec(t);
  const base = letter ? letter[2]! : t;
  names.add(base);
  for (const n of [...names]) {
    names.add(n.split(' (')[0]!.trim());
    names.add(n.split(':')[0]!.trim());
  }
  return { names: [...names], letter: letter?.[1] };
}

function parseContract(markdown: string): Contract {
  const lines = markdown.split('\n');
  const heads: Array<{ line: number; level: number; section: Section }> = [];
  const stack: Array<{ level: number; section: Section }> = [];
  lines.forEach((line, i) => {
    const m = /^(#{2,6})\s+(.+?)\s*$/.exec(line);
    if (!m) return;
    const level = m[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
    const { names, letter } = headingNames(m[2]!);
    const section: Section = { title: m[2]!, names, letter, parent: stack[stack.length - 1]?.section, items: new Set(), text: '' };
    heads.push({ line: i, level, section });
    stack.push({ level, section });
  });
  const labels: Contract['labels'] = new Map();
  heads.forEach((h, k) => {
    const next = heads.slice(k + 1);
    const spanEnd = next.find((o) => o.level <= h.level)?.line ?? lines.length;
    const ownEnd = next[0]?.line ?? lines.length;
    const own = lines.slice(h.line + 1, ownEnd);
    const span = lines.slice(h.line + 1, spanEnd);
    h.section.text = norm(`${h.section.title}\n${span.join('\n')}`);
    const ownItems = own.map((l) => ITEM.exec(l)).filter((m) => m !== null);
    for (const m of ownItems.length > 0 ? ownItems : span.map((l) => ITEM.exec(l)).filter((m) => m !== null)) h.section.items.add(Number(m[1]));
    for (const m of ownItems) {
      if (!m[2]) continue;
      const label = norm(m[2]).replace(/[.:]$/, '');
      labels.set(label, [...(labels.get(label) ?? []), { section: h.section, item: Number(m[1]) }]);
    }
  });
  return { sections: heads.map((h) => h.section), labels };
}

// ---------------------------------------------------------------------------------------------
// Citations in the sources.

interface Citation {
  file: string;
  line: number;
  /** The clause after SPEC (continuation lines joined). */
  clause: string;
}

/** The clause that starts `text`, and whether it ended (else the comment continues on the next line). */
function clauseOf(text: string): { clause: string; complete: boolean } {
  let inQuote = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') inQuote = !inQuote;
    if (inQuote || c === '"') continue;
    const next = text[i + 1];
    const endsHere = next === undefined || /\s/.test(next);
    if (c === '(' || c === ')') return { clause: text.slice(0, i), complete: true };
    if (c === ':' && endsHere) return { clause: text.slice(0, i), complete: true };
    if (c === '.' && text.startsWith('...', i)) i += 2;
    else if (c === '.' && endsHere) return { clause: text.slice(0, i), complete: true };
  }
  return { clause: text, complete: false };
}

const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*(?!\/))/;
const commentText = (line: string): string =>
  line
    .replace(/^\s*(?:\/\/+|\/\*+|\*(?!\/))?\s?/, '')
    .replace(/\s*\*\/.*$/, '')
    .trim();

function citationsIn(file: string, source: string): { citations: Citation[]; prose: number } {
  const lines = source.split('\n');
  const markdown = file.endsWith('.md');
  const citations: Citation[] = [];
  let prose = 0;
  lines.forEach((line, i) => {
    for (const m of line.matchAll(SPEC_WORD)) {
      let rest = line.slice(m.index + 4).replace(/\s*\*\/.*$/, '');
      if (PROSE.test(rest)) {
        prose++;
        continue;
      }
      rest = rest.replace(/^:?\s*/, '');
      let { clause, complete } = clauseOf(rest);
      for (let j = i + 1; !complete && j < lines.length && j <= i + 3; j++) {
        const next = lines[j]!;
        if (markdown ? next.trim() === '' : !COMMENT_LINE.test(next)) break;
        rest = `${rest} ${commentText(next)}`;
        ({ clause, complete } = clauseOf(rest));
      }
      citations.push({ file, line: i + 1, clause: clause.trim() });
    }
  });
  return { citations, prose };
}

function* sourceFiles(rel: string): Generator<string> {
  const full = path.join(ROOT, rel);
  if (!statSync(full, { throwIfNoEntry: false })) return;
  if (statSync(full).isFile()) {
    yield rel;
    return;
  }
  for (const name of readdirSync(full).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const child = `${rel}/${name}`;
    if (statSync(path.join(ROOT, child)).isDirectory()) yield* sourceFiles(child);
    else if (SOURCE_FILE.test(name) && child !== SELF) yield child;
  }
}

// ---------------------------------------------------------------------------------------------
// Resolving a clause against the contract. A citation is `SPEC` followed by one clause, which ends
// at `)`, `(`, `: `, `. ` or the end of the comment:
//
//   SPEC "Personal token lifecycle"    a heading, quoted when it has several words; a heading is also
//                                       known by its text before ` (` or `:`; "A / B" is heading B under A
//   SPEC Limits, SPEC Errors have ...  unquoted: the longest run of leading words that is a heading
//   SPEC C, SPEC section B             a letter: the endpoint group "A. ...", "B. ..." or "C. ..."
//   SPEC Authentication 7, ... 1-3     item numbers under that heading (its own list, else its subsections')
//   SPEC Events rule 1                 the same ("rule" and "item" are read past)
//   SPEC Discovery 9                   the bold label of item 9 (`9. **Discovery.**`)
//   SPEC Limits "Agent rate"           a quoted phrase after a name: a row or term of that section
//                                       (a phrase with `...` is an abridged quotation and is not checked)
//   SPEC rule 5, SPEC scope `x`, SPEC 2    shorthands: "Inbound event validation rules" 5, "Agent token
//                                       scopes" (which must list x), "What the service does" 2
//
// Further items of the clause (after `,` `;` ` and ` ` / ` ` + `) are checked too: a quoted one must be
// a heading or a phrase of the item before it; an unquoted one is checked when it starts with a heading
// (its item numbers must exist) and is otherwise prose ("scope read:docs", "flat errors");
// "inbound protocol 9" and "agent protocol 15" name sections of the served protocol texts and are
// skipped. A few words after SPEC make a sentence about the contract, not a citation (PROSE).

interface Ref {
  /** What the citation names, as written. */
  name: string;
  section?: Section;
  items: number[];
  phrases: string[];
  /** Set when the reference is wrong in a way the section alone does not show (a label cited with another number). */
  error?: string;
}

/** Splits a clause at `,` `;` ` and ` ` / ` ` + ` outside quotes. */
function splitClause(clause: string): string[] {
  const parts: string[] = [];
  let inQuote = false;
  let start = 0;
  for (let i = 0; i < clause.length; i++) {
    if (clause[i] === '"') inQuote = !inQuote;
    if (inQuote) continue;
    const sep = /^(?:[,;]|\s+and\s+|\s+[/+]\s+)/.exec(clause.slice(i));
    if (sep) {
      parts.push(clause.slice(start, i));
      i += sep[0].length - 1;
      start = i + 1;
    }
  }
  parts.push(clause.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function parseItems(text: string): number[] {
  const m = /^(?:(?:rules?|items?)\s+)?(\d+)(?:-(\d+))?(?![\w-])/.exec(text.trim());
  if (!m) return [];
  const from = Number(m[1]);
  const to = m[2] ? Number(m[2]) : from;
  return Array.from({ length: Math.max(0, to - from) + 1 }, (_, k) => from + k);
}

const quotedPhrases = (text: string): string[] => [...text.matchAll(/^\s*"([^"]*)"/g)].map((m) => m[1]!);

class Resolver {
  constructor(private readonly contract: Contract) {}

  /** A heading by name, by its text before `:`, by letter, or by an "A / B" path. */
  heading(name: string): Section | undefined {
    const n = norm(name);
    if (n.includes(' / ')) {
      const [parent, child] = [n.slice(0, n.lastIndexOf(' / ')), n.slice(n.lastIndexOf(' / ') + 3)];
      return this.contract.sections.find((s) => s.names.includes(child) && this.ancestor(s, parent));
    }
    return (
      this.contract.sections.find((s) => s.names.includes(n)) ??
      (n.includes(':') ? this.contract.sections.find((s) => s.names.includes(n.split(':')[0]!.trim())) : undefined)
    );
  }

  letter(letter: string): Section | undefined {
    return this.contract.sections.find((s) => s.letter === letter.toLowerCase());
  }

  private ancestor(s: Section, name: string): boolean {
    for (let p = s.parent; p; p = p.parent) if (p.names.includes(name)) return true;
    return false;
  }

  /** Unquoted words: the longest leading run that is a heading or an item label, then item numbers and a phrase. */
  words(text: string): Ref | undefined {
    const run = /^[\w-]+(?:\s+[\w-]+)*/.exec(text)?.[0] ?? '';
    const words = run.split(/\s+/).filter((w) => w !== '');
    for (let k = words.length; k > 0; k--) {
      const name = words.slice(0, k).join(' ');
      const after = words.slice(k).join(' ');
      const tail = text.slice(run.length);
      const phrases = k === words.length ? quotedPhrases(tail) : [];
      const section = this.heading(name);
      if (section) return { name, section, items: parseItems(after), phrases };
      const labelled = this.contract.labels.get(norm(name));
      if (labelled) {
        const items = parseItems(after);
        const hit = labelled.find((l) => items.every((n) => n === l.item));
        if (hit) return { name, section: hit.section, items: [hit.item], phrases };
        const where = `item ${labelled.map((l) => l.item).join(', ')} of "${labelled[0]!.section.title}"`;
        return { name, section: labelled[0]!.section, items, phrases, error: `"${name}" labels ${where}, not item ${items.join(', ')}` };
      }
    }
    return undefined;
  }

  /**
   * One part of a clause. `lead`: the first part, which must resolve. `previous`: the reference the
   * part just before made, if it made one; `last`: the last reference the clause made.
   */
  part(text: string, lead: boolean, previous: Ref | undefined, last: Ref | undefined): Ref | undefined {
    if (!lead && SERVED_TEXT.test(text)) return undefined;
    const quoted = /^"([^"]*)"?\s*(.*)$/.exec(text);
    if (quoted) {
      const name = quoted[1]!;
      const tail = quoted[2]!;
      const section = this.heading(name);
      if (section || lead || !last) return { name: `"${name}"`, section, items: parseItems(tail), phrases: quotedPhrases(tail) };
      last.phrases.push(name);
      return undefined;
    }
    let m = /^(?:section\s+)?([A-Z])(?![\w-])\s*(.*)$/.exec(text);
    if (m) return { name: m[1]!, section: this.letter(m[1]!), items: [], phrases: quotedPhrases(m[2]!) };
    if ((m = /^rules?\s+\d/.exec(text))) return { name: text, section: this.heading('Inbound event validation rules'), items: parseItems(text), phrases: [] };
    if ((m = /^scope\s+`?([\w:*]+)`?/.exec(text))) return { name: text, section: this.heading('Agent token scopes'), items: [], phrases: [m[1]!] };
    if (/^\d/.test(text)) {
      const items = parseItems(text);
      if (!lead) {
        // More item numbers of a numbered citation just before ("Authentication 1-3, 5-7").
        if (previous && previous.items.length > 0) previous.items.push(...items);
        return undefined;
      }
      return { name: text, section: this.heading('What the service does'), items, phrases: [] };
    }
    const ref = this.words(text);
    if (ref || !lead) return ref;
    return { name: /^[^\d,;:()"]*/.exec(text)![0].trim() || text, items: [], phrases: [] };
  }

  /** The references of one clause, in order. */
  refs(clause: string): Ref[] {
    const refs: Ref[] = [];
    let previous: Ref | undefined;
    splitClause(clause).forEach((text, k) => {
      const ref = this.part(text, k === 0, previous, refs[refs.length - 1]);
      if (ref) refs.push(ref);
      // A quoted phrase of the part before keeps that part current.
      if (ref || !/^"/.test(text)) previous = ref;
    });
    return refs;
  }

  /** What does not resolve in a reference, or undefined. */
  problem(ref: Ref): string | undefined {
    const s = ref.section;
    if (ref.error) return ref.error;
    if (!s) return `"${ref.name.replace(/^"|"$/g, '')}" is not a heading of ${CONTRACT_FILE}`;
    // A number after a heading without numbered items is not an item number ("Errors 422").
    const missing = s.items.size === 0 ? [] : ref.items.filter((n) => !s.items.has(n));
    if (missing.length > 0) return `"${s.title}" has no item ${missing.join(', ')}`;
    const absent = ref.phrases.filter((p) => !p.includes('...') && !s.text.includes(norm(p)));
    if (absent.length > 0) return `"${s.title}" does not mention ${absent.map((p) => `"${p}"`).join(', ')}`;
    return undefined;
  }

  /** Every unresolved reference of the given citations, as `file:line: SPEC clause -> problem`. */
  check(citations: Citation[]): { problems: string[]; refs: Ref[] } {
    const problems: string[] = [];
    const refs: Ref[] = [];
    for (const c of citations) {
      const found = this.refs(c.clause);
      if (found.length === 0) problems.push(`${c.file}:${c.line}: SPEC with no section name`);
      for (const ref of found) {
        refs.push(ref);
        const p = this.problem(ref);
        if (p) problems.push(`${c.file}:${c.line}: SPEC ${c.clause} -> ${p}`);
      }
    }
    return { problems, refs };
  }
}

// ---------------------------------------------------------------------------------------------

const contract = parseContract(readFileSync(path.join(ROOT, CONTRACT_FILE), 'utf8'));
const resolver = new Resolver(contract);

function scanRepository(): { citations: Citation[]; prose: number } {
  const citations: Citation[] = [];
  let prose = 0;
  for (const root of SCANNED) {
    for (const file of sourceFiles(root)) {
      const found = citationsIn(file, readFileSync(path.join(ROOT, file), 'utf8'));
      citations.push(...found.citations);
      prose += found.prose;
    }
  }
  return { citations, prose };
}

const problemsOf = (source: string): string[] => resolver.check(citationsIn('fixture.ts', source).citations).problems;

describe('SPEC citations resolve to docs/contract.md', () => {
  it('every citation in the repository names a heading, an item or a phrase of the contract', () => {
    const { citations } = scanRepository();
    expect(citations.length).toBeGreaterThan(150);
    const { problems, refs } = resolver.check(citations);
    expect(problems).toEqual([]);
    expect(new Set(refs.map((r) => r.section?.title)).size).toBeGreaterThan(30);
  });

  it('reports a section, an item or a phrase the contract does not have', () => {
    const problems = problemsOf(
      [
        '// A made-up section (SPEC Made-up section 3).',
        '// (SPEC "Nonexistent heading")',
        '// (SPEC Authentication 42)',
        '// (SPEC section D)',
        '// (SPEC Limits "No such row")',
        '// (SPEC C write tools, "Not a heading either")',
        '// (SPEC says so)',
        '// (SPEC Discovery 3)',
        '// (SPEC scope `write:nothing`)',
      ].join('\n'),
    );
    expect(problems).toEqual([
      'fixture.ts:1: SPEC Made-up section 3 -> "Made-up section" is not a heading of docs/contract.md',
      'fixture.ts:2: SPEC "Nonexistent heading" -> "Nonexistent heading" is not a heading of docs/contract.md',
      'fixture.ts:3: SPEC Authentication 42 -> "Authentication" has no item 42',
      'fixture.ts:4: SPEC section D -> "D" is not a heading of docs/contract.md',
      'fixture.ts:5: SPEC Limits "No such row" -> "Limits" does not mention "No such row"',
      'fixture.ts:6: SPEC C write tools, "Not a heading either" -> "C. Agent tool protocol (`POST /mcp`)" does not mention "Not a heading either"',
      'fixture.ts:7: SPEC says so -> "says so" is not a heading of docs/contract.md',
      'fixture.ts:8: SPEC Discovery 3 -> "Discovery" labels item 9 of "What the service does", not item 3',
      'fixture.ts:9: SPEC scope `write:nothing` -> "Agent token scopes" does not mention "write:nothing"',
    ]);
  });

  it('resolves every citation form the repository uses, and skips prose about the contract', () => {
    const forms = [
      '// (SPEC C write tools; admin, scope admin:approvals)',
      '// (SPEC section B, "Legacy 400 body", Limits)',
      '// (SPEC "What the service does" 8: project isolation)',
      '// (SPEC What the service does 8 + users.entity roles)',
      '// (SPEC Authentication 1-3, 5, "Personal token',
      '// lifecycle")',
      '// (SPEC Events rule 1), (SPEC rule 5: "token, secret")',
      '// (SPEC Discovery 9), (SPEC mode 2), (SPEC 2: a summary)',
      '// (SPEC "States and transitions / Tasks"), (SPEC "Restoring an archived document: not shown")',
      '// (SPEC Limits "Agent rate"; Errors "429 ... X-RateLimit-*"; inbound protocol 9)',
      '// (SPEC C "Transport", "Methods", "Batch")',
      '// (SPEC Authentication 7, "event types of own integrator")',
      '// (SPEC: InboundEvent, "Dedup and repeated events")',
      '// SPEC Errors have their own title, every other slug its kind title',
    ].join('\n');
    expect(problemsOf(forms)).toEqual([]);
    const prose = citationsIn(
      'fixture.ts',
      "// the SPEC's rule; (SPEC: a revoked token); SPEC (a note); the SPEC spells them; SPEC must allow; `SPEC <section>`",
    );
    expect(prose).toEqual({ citations: [], prose: 6 });
  });
});
