#!/usr/bin/env node
// `npm run lint:layers`: two rules of ARCHITECTURE.md ("Speed machinery lives behind ports") that
// an import rule cannot see, checked on the syntax tree of every file under src/domain/ (the
// TypeScript compiler API parses each file on its own; no type-check, about a second):
//
//   scheduling  no timers or event-loop scheduling in the domain: calls of (or references to)
//               setTimeout, setInterval, setImmediate, queueMicrotask, process.nextTick, and any
//               `new Promise(...)` (a hand-made scheduler or callback bridge). Batching, group
//               commit and background refreshes are infra implementations of domain ports.
//   sql         SQL only in `*.repository.ts` (and src/domain/sql.ts, the one raw-SQL helper those
//               repositories use) or under src/infra/: no `.execute(`, `.getConnection(`,
//               `.getKnex(` call and no string or template literal that is an SQL statement
//               anywhere else in src/domain/.
//
// Prints `file:line:column rule: what` for each finding and exits 1 when there is any.
// Usage: node scripts/check-layers.mjs [root]   (root defaults to the repository)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
const DOMAIN = path.join(root, 'src', 'domain');

const SCHEDULERS = new Set(['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask']);
const GLOBALS = new Set(['globalThis', 'global', 'window']);
const SQL_CALLS = new Set(['execute', 'getConnection', 'getKnex']);
/** Files of src/domain allowed to hold SQL besides *.repository.ts (relative, posix). */
const SQL_ALLOWED = new Set(['src/domain/sql.ts']);

// An SQL statement: it starts with a statement keyword (after comments) AND has SQL's shape
// (placeholders, casts, comparisons, a clause keyword), so prose such as "select one from the list"
// or "update your token" does not count.
const SQL_START = /^\s*(?:\/\*[\s\S]*?\*\/\s*|--[^\n]*\n\s*)*(?:select|insert\s+into|update|delete\s+from|with|merge\s+into|lock\s+table|truncate)\b/i;
const SQL_SHAPE = /\?|\$\d|::|=|\b(?:where|returning|values|on\s+conflict|join|group\s+by|order\s+by|limit)\b|\bfrom\s+[a-z_][\w.]*\s*(?:$|\)|,)/i;
const isSql = (text) => SQL_START.test(text) && SQL_SHAPE.test(text);

function* tsFiles(dir) {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* tsFiles(full);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) yield full;
  }
}

/** The literal text of a string or template literal (substitutions as a space), or undefined. */
function literalText(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => ` ${s.literal.text}`).join('');
  return undefined;
}

/** A reference to `name` as a value (not a property name, a declaration or a type). */
function isValueReference(node) {
  const p = node.parent;
  if (!p) return true;
  if (ts.isPropertyAccessExpression(p) && p.name === node) return false;
  if (
    (ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p) || ts.isPropertySignature(p) || ts.isMethodSignature(p)) &&
    p.name === node
  )
    return false;
  if ((ts.isFunctionDeclaration(p) || ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isImportSpecifier(p) || ts.isBindingElement(p)) && p.name === node)
    return false;
  if (ts.isTypeReferenceNode(p) || ts.isQualifiedName(p)) return false;
  return true;
}

export function checkFile(file, text, rel) {
  const findings = [];
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const sqlAllowed = rel.endsWith('.repository.ts') || SQL_ALLOWED.has(rel);
  const report = (node, rule, what) => {
    const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    findings.push({ file: rel, line: line + 1, column: character + 1, rule, what });
  };
  const visit = (node) => {
    // scheduling
    if (ts.isIdentifier(node) && SCHEDULERS.has(node.text) && isValueReference(node)) report(node, 'scheduling', node.text);
    if (ts.isPropertyAccessExpression(node)) {
      const obj = node.expression;
      const name = node.name.text;
      if (ts.isIdentifier(obj) && obj.text === 'process' && name === 'nextTick') report(node, 'scheduling', 'process.nextTick');
      if (ts.isIdentifier(obj) && GLOBALS.has(obj.text) && SCHEDULERS.has(name)) report(node, 'scheduling', `${obj.text}.${name}`);
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Promise') report(node, 'scheduling', 'new Promise(...)');
    // sql
    if (!sqlAllowed) {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && SQL_CALLS.has(node.expression.name.text)) {
        report(node.expression.name, 'sql', `.${node.expression.name.text}(...) outside a repository`);
      }
      const literal = literalText(node);
      if (literal !== undefined && isSql(literal))
        report(node, 'sql', `SQL text outside a repository: ${JSON.stringify(literal.trim().replace(/\s+/g, ' ').slice(0, 60))}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return findings;
}

function main() {
  const findings = [];
  for (const file of tsFiles(DOMAIN)) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    findings.push(...checkFile(file, readFileSync(file, 'utf8'), rel));
  }
  findings.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
  for (const f of findings) console.log(`${f.file}:${f.line}:${f.column} ${f.rule}: ${f.what}`);
  if (findings.length > 0) {
    const files = new Set(findings.map((f) => f.file)).size;
    console.error(
      `\n${findings.length} finding(s) in ${files} file(s) under src/domain/ (scheduling belongs in infra/ behind a port; SQL in *.repository.ts or infra/)`,
    );
    process.exit(1);
  }
  console.log('check-layers: no scheduling and no SQL outside repositories in src/domain/');
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('check-layers.mjs')) main();
