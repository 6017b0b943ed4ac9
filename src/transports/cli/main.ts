// `fluxdesk <command>`: JSON on stdout; non-zero exit and a message on stderr on failure.
// PostgreSQL: runs the operation directly. Embedded: through the running server's operator
// socket when a server owns DATA_DIR, else opens the embedded database itself (taking the lock).
import { loadConfig } from '../../config.js';
import { createDeps, createLogger } from '../../deps.js';
import { readLockOwner } from '../../infra/db/data-dir-lock.js';
import { callOperatorSocket, runOperator, type OperatorReply } from './operator-socket.js';
import { parseCommand, USAGE, UsageError, type ParsedCommand } from './commands.js';

function fail(message: string, code = 1): never {
  process.stderr.write(`fluxdesk: ${message}\n`);
  process.exit(code);
}

function describe(reply: OperatorReply): string {
  const e = reply.error!;
  const issues = (e.issues as { field: string; message: string }[]).map((i) => `\n  ${i.field || '(input)'}: ${i.message}`).join('');
  return `${e.code}: ${e.message}${issues}`;
}

async function main(argv: string[]): Promise<void> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    if (argv.length === 0) process.exit(2);
    return;
  }
  let cmd: ParsedCommand;
  try {
    cmd = parseCommand(argv);
  } catch (e) {
    if (e instanceof UsageError) fail(`${e.message}\n${USAGE}`, 2);
    throw e;
  }
  const config = loadConfig(process.env, '0.0.0');
  const owner = config.databaseUrl ? null : readLockOwner(config.dataDir);
  if (owner) {
    if (cmd.op === 'migrate') {
      process.stdout.write(`${JSON.stringify({ ok: true, applied: [], note: 'the running server applied migrations at start' })}\n`);
      return;
    }
    const reply = await callOperatorSocket(owner.socketPath, cmd.op, cmd.input);
    if (!reply.ok) fail(describe(reply));
    process.stdout.write(`${JSON.stringify(reply.output)}\n`);
    return;
  }
  // Logs go to stderr: stdout carries only the JSON answer.
  const logger = createLogger('warn', 2);
  // `migrate --post-deploy`: the post-deploy migrations too (docs/migrations.md).
  const postDeploy = cmd.op === 'migrate' && cmd.input?.postDeploy === true;
  const deps = await createDeps({ ...config, redisUrl: undefined, migratePostDeploy: config.migratePostDeploy || postDeploy }, { role: 'cli', logger });
  let reply: OperatorReply;
  try {
    // createDeps applied pending migrations already.
    reply = cmd.op === 'migrate' ? { ok: true, output: { ok: true, applied: 'up to date' } } : await runOperator(deps, cmd.op, cmd.input);
  } finally {
    await deps.close();
  }
  if (!reply.ok) fail(describe(reply));
  process.stdout.write(`${JSON.stringify(reply.output)}\n`);
}

main(process.argv.slice(2)).catch((err) => fail((err as Error).message));
