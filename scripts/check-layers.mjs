#!/usr/bin/env node
// `npm run lint:layers`: the layer rules an import rule cannot see (docs/architecture.md, "Layer
// rules CI enforces": scheduling and sql in src/domain/, module-state in src/domain/ and src/infra/),
// checked on each file's syntax tree by the TypeScript compiler API (no type-check, about a second).
// Prints `file:line:column rule: what` per finding and exits 1 when there is any.
// Usage: node scripts/check-layers.mjs [root]   (root defaults to the repository)
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
const DOMAIN = path.join(root, 'src', 'domain');
const INFRA = path.join(root, 'src', 'infra');

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

// --- module-state ---------------------------------------------------------------------------

/**
 * Module-level state that stays, by file and binding name, each with the reason it is not a value
 * built in src/deps.ts. Keep it short.
 */
const MODULE_STATE_ALLOWED = [
  // { file: 'src/infra/example.ts', name: 'counter', reason: 'one line: why it must be process-wide' },
];
const COLLECTIONS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet']);
const READONLY_COLLECTIONS = new Set(['ReadonlyMap', 'ReadonlySet']);
const MUTATING_METHODS = new Set(['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin', 'set', 'add', 'delete', 'clear']);

/** The names a binding name declares (`a`, `{ a, b: [c] }`). */
function bindingNames(name) {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/** What `st` declares under `name`: 'variable', 'other' (function, class, enum, import) or undefined. */
function statementDeclares(st, name) {
  if (ts.isVariableStatement(st)) return st.declarationList.declarations.some((d) => bindingNames(d.name).includes(name)) ? 'variable' : undefined;
  if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) && st.name?.text === name) return 'other';
  const clause = ts.isImportDeclaration(st) ? st.importClause : undefined;
  if (!clause) return undefined;
  const b = clause.namedBindings;
  const names = [
    clause.name?.text,
    b && ts.isNamespaceImport(b) ? b.name.text : undefined,
    ...(b && ts.isNamedImports(b) ? b.elements.map((e) => e.name.text) : []),
  ];
  return names.includes(name) ? 'other' : undefined;
}

/** What scope `node` declares under `name` (see statementDeclares), parameters and loop variables included. */
function scopeDeclares(node, name) {
  if (ts.isFunctionLike(node)) {
    if (node.parameters.some((p) => bindingNames(p.name).includes(name))) return 'other';
    if (ts.isFunctionExpression(node) && node.name?.text === name) return 'other';
  }
  const statements =
    ts.isSourceFile(node) || ts.isBlock(node) || ts.isModuleBlock(node) || ts.isCaseClause(node) || ts.isDefaultClause(node) ? node.statements : [];
  for (const st of statements) {
    const kind = statementDeclares(st, name);
    if (kind) return kind;
  }
  const loopList = (ts.isForStatement(node) || ts.isForOfStatement(node) || ts.isForInStatement(node)) && node.initializer;
  if (loopList && ts.isVariableDeclarationList(loopList) && loopList.declarations.some((d) => bindingNames(d.name).includes(name))) return 'other';
  if (ts.isCatchClause(node) && node.variableDeclaration && bindingNames(node.variableDeclaration.name).includes(name)) return 'other';
  return undefined;
}

/** How the module declares the binding `id` refers to ('variable' | 'other'), or undefined for a local or a global. */
function moduleBinding(id) {
  for (let n = id.parent; n; n = n.parent) {
    const kind = scopeDeclares(n, id.text);
    if (kind) return ts.isSourceFile(n) ? kind : undefined;
  }
  return undefined;
}

/** The identifier a property chain (`a.b[c].d`) starts from, when the chain has at least one property step. */
function chainRoot(expr) {
  let e = expr;
  let steps = 0;
  for (;;) {
    if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) steps++;
    else if (
      !(ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isTypeAssertionExpression(e))
    )
      break;
    e = e.expression;
  }
  return steps > 0 && ts.isIdentifier(e) ? e : undefined;
}

/** Code that runs when the module loads: not inside a function, nor a per-instance class field. */
function runsAtLoad(node) {
  for (let n = node.parent; n; n = n.parent) {
    if (ts.isFunctionLike(n)) return false;
    if (ts.isPropertyDeclaration(n) && !n.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword)) return false;
  }
  return true;
}

const isAssignment = (kind) => kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
const short = (node, sf) => node.getText(sf).replace(/\s+/g, ' ').slice(0, 60);

/** The module-state findings of one file (docs/architecture.md "module-state"), before MODULE_STATE_ALLOWED. */
function moduleStateFindings(sf, node, report) {
  // let / var at module level
  if (ts.isVariableStatement(node) && (ts.isSourceFile(node.parent) || ts.isModuleBlock(node.parent))) {
    const flags = node.declarationList.flags;
    if (!(flags & ts.NodeFlags.Const)) {
      const keyword = flags & ts.NodeFlags.Let ? 'let' : 'var';
      for (const d of node.declarationList.declarations) for (const name of bindingNames(d.name)) report(d.name, name, `module-level ${keyword} ${name}`);
    }
  }
  // collections made at load time
  if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && COLLECTIONS.has(node.expression.text) && runsAtLoad(node)) {
    const d = node.parent;
    const readonlyConst =
      ts.isVariableDeclaration(d) &&
      d.initializer === node &&
      d.parent.flags & ts.NodeFlags.Const &&
      d.type !== undefined &&
      ts.isTypeReferenceNode(d.type) &&
      READONLY_COLLECTIONS.has(d.type.typeName.getText(sf));
    if (!readonlyConst) {
      let owner = node.parent;
      while (owner && !ts.isVariableDeclaration(owner) && !ts.isPropertyDeclaration(owner)) owner = owner.parent;
      const name = owner && ts.isIdentifier(owner.name) ? owner.name.text : '(unnamed)';
      const ctor = node.expression.text;
      const fix = ctor.startsWith('Weak') ? 'a value built in src/deps.ts' : `a const typed Readonly${ctor}, or a value built in src/deps.ts`;
      report(node, name, `new ${ctor}(...) kept by the module (${name}): ${fix}`);
    }
  }
  // writes through a module-level binding
  let target;
  if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind)) target = node.left;
  else if (
    (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
    [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(node.operator)
  )
    target = node.operand;
  else if (ts.isDeleteExpression(node)) target = node.expression;
  const root = target && chainRoot(target);
  if (root && moduleBinding(root)) report(target, root.text, `${short(target, sf)} changes module-level ${root.text}`);
  // mutating calls on a module-level variable
  if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && MUTATING_METHODS.has(node.expression.name.text)) {
    const recv = node.expression.expression;
    const id = ts.isIdentifier(recv) ? recv : chainRoot(recv);
    if (id && moduleBinding(id) === 'variable') report(node, id.text, `${short(node.expression, sf)}(...) changes module-level ${id.text}`);
  }
}

export function checkFile(file, text, rel) {
  const findings = [];
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const inDomain = rel.startsWith('src/domain/');
  const stateChecked = inDomain || rel.startsWith('src/infra/');
  const sqlAllowed = rel.endsWith('.repository.ts') || SQL_ALLOWED.has(rel);
  const report = (node, rule, what) => {
    const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    findings.push({ file: rel, line: line + 1, column: character + 1, rule, what });
  };
  const allowed = new Set(MODULE_STATE_ALLOWED.filter((a) => a.file === rel).map((a) => a.name));
  const reportState = (node, name, what) => {
    if (!allowed.has(name)) report(node, 'module-state', what);
  };
  const visit = (node) => {
    if (stateChecked) moduleStateFindings(sf, node, reportState);
    if (!inDomain) return ts.forEachChild(node, visit);
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
  for (const dir of [DOMAIN, INFRA]) {
    if (!existsSync(dir)) continue;
    for (const file of tsFiles(dir)) {
      const rel = path.relative(root, file).split(path.sep).join('/');
      findings.push(...checkFile(file, readFileSync(file, 'utf8'), rel));
    }
  }
  findings.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
  for (const f of findings) console.log(`${f.file}:${f.line}:${f.column} ${f.rule}: ${f.what}`);
  if (findings.length > 0) {
    const files = new Set(findings.map((f) => f.file)).size;
    console.error(
      `\n${findings.length} finding(s) in ${files} file(s) under src/domain/ and src/infra/ (scheduling belongs in infra/ behind a port; SQL in *.repository.ts or infra/; state in a value built in src/deps.ts)`,
    );
    process.exit(1);
  }
  console.log('check-layers: no scheduling and no SQL outside repositories in src/domain/, no module-level state in src/domain/ and src/infra/');
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('check-layers.mjs')) main();
