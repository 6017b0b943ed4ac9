// API evolution guard (docs/api-evolution.md): the protobuf module (`buf breaking`) and the served
// OpenAPI document (scripts/api-compat.openapi.ts) against the committed release baseline in
// api/baseline/, honouring api/breaking-exceptions.json. Exit 1 on an unrecorded break.
//   npx tsx scripts/api-compat.ts                  check (CI: npm run lint:compat)
//   npx tsx scripts/api-compat.ts --write-baseline move the baseline to this tree (at a release)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyExceptions, loadExceptions, type Finding } from './api-compat.exceptions.js';
import { diffOpenApi } from './api-compat.openapi.js';
import { bufBreaking, bufBuildImage } from './api-compat.proto.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASELINE = path.join(ROOT, 'api', 'baseline');
const FILES = {
  proto: path.join(BASELINE, 'fluxdesk.binpb'),
  openapi: path.join(BASELINE, 'openapi.json'),
  release: path.join(BASELINE, 'release.json'),
  exceptions: path.join(ROOT, 'api', 'breaking-exceptions.json'),
};
// The document is built for a fixed base URL: `servers` is not part of the contract compared.
const DOC_BASE_URL = 'http://127.0.0.1:8080';

/** The OpenAPI document GET /api/v1/openapi.json serves, built from the route declarations. */
async function currentOpenApi(): Promise<Record<string, unknown>> {
  const mod = (await import('../src/transports/rest-v1/openapi.js')) as Record<string, unknown>;
  const build = mod.buildOpenApi;
  if (typeof build !== 'function')
    throw new Error(
      'src/transports/rest-v1/openapi.ts no longer exports buildOpenApi: point currentOpenApi() in scripts/api-compat.ts at what builds the served document',
    );
  return (await build(DOC_BASE_URL)) as Record<string, unknown>;
}

function writeBaseline(doc: Record<string, unknown>): void {
  mkdirSync(BASELINE, { recursive: true });
  bufBuildImage(ROOT, FILES.proto);
  writeFileSync(FILES.openapi, `${JSON.stringify(doc, null, 2)}\n`);
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // not a git checkout: record the commit by hand in release.json
  }
  const release = {
    version: pkg.version,
    commit,
    taken: new Date().toISOString().slice(0, 10),
    note: 'proto image and OpenAPI document of this release; moved only at a release (docs/api-evolution.md)',
  };
  writeFileSync(FILES.release, `${JSON.stringify(release, null, 2)}\n`);
  console.log(`baseline written for ${pkg.version} (tree at ${commit.slice(0, 12)}): ${path.relative(ROOT, BASELINE)}/`);
  console.log('Now empty the list in api/breaking-exceptions.json: its entries were about the previous baseline.');
}

async function main(argv: string[]): Promise<number> {
  const doc = await currentOpenApi();
  if (argv.includes('--write-baseline')) {
    writeBaseline(doc);
    return 0;
  }
  const release = JSON.parse(readFileSync(FILES.release, 'utf8')) as { version: string; commit: string };
  const exceptions = loadExceptions(FILES.exceptions);
  const baseDoc = JSON.parse(readFileSync(FILES.openapi, 'utf8')) as Record<string, unknown>;
  const findings: Finding[] = [...bufBreaking({ cwd: ROOT, against: FILES.proto }), ...diffOpenApi(baseDoc, doc)];
  const v = applyExceptions(findings, exceptions);

  console.log(`API compatibility against release ${release.version} (api/baseline/, tree ${release.commit.slice(0, 12)}): protobuf (buf breaking) and OpenAPI`);
  for (const { finding, exception } of v.excepted) console.log(`  allowed  ${finding.id}\n           (${exception.who}, ${exception.when}: ${exception.why})`);
  for (const e of v.unused) console.log(`  note: exception matches no change any more, remove it: ${e.change}`);
  if (v.breaking.length === 0) {
    console.log(`ok: no unrecorded breaking change (${v.excepted.length} recorded exception(s) used)`);
    return 0;
  }
  console.error(`\n${v.breaking.length} breaking change(s) against release ${release.version}:`);
  for (const f of v.breaking) console.error(`\n  ${f.message}\n    change: ${f.id}`);
  console.error(
    '\n/api/v1/* contracts stay stable and protocol changes stay additive (SPEC "Versioning").' +
      '\nMake the change additive, or, if the break is deliberate, record it in api/breaking-exceptions.json:' +
      '\n  { "change": "<the change line above, exactly>", "why": "...", "who": "...", "when": "YYYY-MM-DD" }' +
      '\n(docs/api-evolution.md).',
  );
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`api-compat: ${err.message}`);
    process.exit(2);
  },
);
