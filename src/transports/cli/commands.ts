// argv -> { operation name, input }. Each command is declared once (its words, operation and flags);
// node:util parseArgs reads the flags (--kebab-case, `--flag value` or `--flag=value`), and the
// declaration maps each flag to the operation's input field.
import { parseArgs } from 'node:util';
import { SELF_SERVICE_DAILY_LIMITS } from '../../domain/tokens/tokens.limits.js';
import { RETENTION_COMMAND } from '../../app/partition-retention.js';

/** `migrate` runs the migrator (`--post-deploy`: the post-deploy migrations too); it has no operation input. */
export type ParsedCommand = { op: string; input: Record<string, unknown> } | { op: 'migrate'; input?: { postDeploy: boolean } };

export class UsageError extends Error {}

export const USAGE = `usage: fluxdesk <command> [flags]   (JSON on stdout)
  bootstrap --email E --name N                       first super admin + agent token (scopes ["*"])
  user create --email E --name N [--role R]
  agent-token --email E [--scopes a,b] [--label L]
  agent-connect --email E [--scopes a,b] [--label L] one-click client setup: {session_id, expires_at} (10 min, single use)
  login-link --email E                               one-time web sign-in link: {url, expiresAt} (10 min, single use)
  project create --slug S --name N [--owner E] [--members E,..] [--leads E,..] [--tech-leads E,..]
  token create --email E --label L [--daily-limit ${SELF_SERVICE_DAILY_LIMITS.join('|')}] [--note T]
  tools-token create --owner E --integrator SLUG --name N   {tokenId,token,integratorSlug,catalogSlug}
  catalog apply --email E --catalog SLUG [--note T]  apply for a catalog row (pending; approved at once when it needs no review)
  moderation-token create --owner E --label L [--daily-limit N]   {tokenId,token} (mode 2, owner an admin)
  token reset-breaker --token-id ID                  close a token's circuit breaker {token_id,was_open}
  user grant-capability --email E --capability code.repo.bind   (user revoke-capability: same flags)
  meeting create --project S --title T --starts-at ISO [--ends-at ISO] --by E   a meeting (found by the search tool)
  retention [--apply]                                months past AUDIT_RETENTION_DAYS / DELIVERY_RETENTION_DAYS that would be dropped; --apply drops them
  migrate [--post-deploy]                            apply pending migrations (--post-deploy: also the contract steps
                                                     to run once every node runs this release)`;

/** How a flag's text becomes an input value: as is, a comma list, or an integer. */
type Kind = 'text' | 'list' | 'int';
interface Command {
  words: string[];
  op: string;
  /** flag name -> [input field, kind] */
  flags: Record<string, [field: string, kind?: Kind]>;
}

const COMMANDS: Command[] = [
  { words: ['bootstrap'], op: 'users.bootstrap', flags: { email: ['email'], name: ['name'] } },
  { words: ['user', 'create'], op: 'users.create', flags: { email: ['email'], name: ['name'], role: ['role'] } },
  { words: ['agent-token'], op: 'agent_tokens.create', flags: { email: ['email'], scopes: ['scopes', 'list'], label: ['label'] } },
  { words: ['agent-connect'], op: 'agent_connect.start', flags: { email: ['email'], scopes: ['scopes', 'list'], label: ['label'] } },
  { words: ['login-link'], op: 'web.create_login_link', flags: { email: ['email'] } },
  {
    words: ['project', 'create'],
    op: 'projects.create',
    flags: { slug: ['slug'], name: ['name'], owner: ['owner'], members: ['members', 'list'], leads: ['leads', 'list'], 'tech-leads': ['tech_leads', 'list'] },
  },
  {
    words: ['token', 'create'],
    op: 'tokens.create_personal',
    flags: { email: ['email'], label: ['label'], 'daily-limit': ['daily_limit', 'int'], note: ['note'] },
  },
  { words: ['tools-token', 'create'], op: 'tokens.create_tools', flags: { owner: ['owner'], integrator: ['integrator'], name: ['name'] } },
  {
    words: ['moderation-token', 'create'],
    op: 'moderation.create_token',
    flags: { owner: ['owner'], label: ['label'], 'daily-limit': ['daily_limit', 'int'], note: ['note'] },
  },
  { words: ['token', 'reset-breaker'], op: 'tokens.reset_circuit_breaker_operator', flags: { 'token-id': ['token_id'] } },
  { words: ['user', 'grant-capability'], op: 'users.grant_capability', flags: { email: ['email'], capability: ['capability'] } },
  { words: ['user', 'revoke-capability'], op: 'users.revoke_capability', flags: { email: ['email'], capability: ['capability'] } },
  {
    words: ['meeting', 'create'],
    op: 'meetings.create',
    flags: { project: ['project_slug'], title: ['title'], 'starts-at': ['starts_at'], 'ends-at': ['ends_at'], by: ['created_by_email'] },
  },
  { words: ['catalog', 'apply'], op: 'catalog.requests.create', flags: { email: ['email'], catalog: ['catalog_slug'], note: ['note'] } },
];

function convert(name: string, kind: Kind, v: string): unknown {
  if (kind === 'list')
    return v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (kind === 'int') {
    if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} must be an integer`);
    return Number(v);
  }
  return v;
}

/** parseArgs' errors, in the CLI's own words (the flag or argument named as typed). */
function usageErrorFrom(err: Error & { code?: string }, args: string[]): UsageError {
  const quoted = /'([^']*)'/.exec(err.message)?.[1];
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown flag ${quoted}`);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(`unexpected argument "${quoted}"`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const flag = quoted?.split(' ')[0] ?? '';
      // parseArgs takes an argument starting with a dash for the next flag, not for a value.
      const next = args[args.indexOf(flag) + 1];
      const hint = next !== undefined && !next.startsWith('--') ? ` (for a value starting with a dash write ${flag}=${next})` : '';
      return new UsageError(`flag ${flag} needs a value${hint}`);
    }
    default:
      return new UsageError(err.message);
  }
}

export function parseCommand(argv: string[]): ParsedCommand {
  if (argv[0] === 'migrate') {
    try {
      const { values } = parseArgs({ args: argv.slice(1), options: { 'post-deploy': { type: 'boolean' } }, strict: true, allowPositionals: false });
      return values['post-deploy'] === true ? { op: 'migrate', input: { postDeploy: true } } : { op: 'migrate' };
    } catch (err) {
      throw usageErrorFrom(err as Error, argv.slice(1));
    }
  }
  if (argv[0] === 'retention') {
    try {
      const { values } = parseArgs({ args: argv.slice(1), options: { apply: { type: 'boolean' } }, strict: true, allowPositionals: false });
      return { op: RETENTION_COMMAND, input: { apply: values.apply === true } };
    } catch (err) {
      throw usageErrorFrom(err as Error, argv.slice(1));
    }
  }
  const cmd = COMMANDS.find((c) => c.words.every((w, i) => argv[i] === w));
  if (!cmd) throw new UsageError(argv.length ? `unknown command "${argv.join(' ')}"` : 'no command given');
  const args = argv.slice(cmd.words.length);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: Object.fromEntries(Object.keys(cmd.flags).map((name) => [name, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw usageErrorFrom(err as Error, args);
  }
  const input: Record<string, unknown> = {};
  for (const [name, [field, kind = 'text']] of Object.entries(cmd.flags)) {
    const v = values[name];
    if (typeof v === 'string') input[field] = convert(name, kind, v);
  }
  return { op: cmd.op, input };
}
