// argv -> { operation name, input }. Flags are --kebab-case; values map to the operations' inputs.
export interface ParsedCommand {
  op: string;
  input: Record<string, unknown>;
}

export class UsageError extends Error {}

export const USAGE = `usage: fluxdesk <command> [flags]   (JSON on stdout)
  bootstrap --email E --name N                       first super admin + agent token (scopes ["*"])
  user create --email E --name N [--role R]
  agent-token --email E [--scopes a,b] [--label L]
  agent-connect --email E [--scopes a,b] [--label L] one-click client setup: {session_id, expires_at} (10 min, single use)
  project create --slug S --name N [--owner E] [--members E,..] [--leads E,..] [--tech-leads E,..]
  token create --email E --label L [--daily-limit 50|200|500|1000] [--note T]
  tools-token create --owner E --integrator SLUG --name N   {tokenId,token,integratorSlug,catalogSlug}
  catalog apply --email E --catalog SLUG [--note T]  file a pending request for a catalog row
  moderation-token create --owner E --label L [--daily-limit N]   {tokenId,token} (mode 2, owner an admin)
  token reset-breaker --token-id ID                  close a token's circuit breaker {token_id,was_open}
  user grant-capability --email E --capability code.repo.bind   (user revoke-capability: same flags)
  meeting create --project S --title T --starts-at ISO [--ends-at ISO] --by E   a meeting (found by the search tool)
  migrate                                            apply pending migrations`;

function parseFlags(args: string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument "${a}"`);
    const eq = a.indexOf('=');
    if (eq !== -1) flags[a.slice(2, eq)] = a.slice(eq + 1);
    else {
      const v = args[i + 1];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`flag ${a} needs a value`);
      flags[a.slice(2)] = v;
      i++;
    }
  }
  return flags;
}

const list = (v: string | undefined) => (v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean));
const int = (name: string, v: string | undefined) => {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} must be an integer`);
  return Number(v);
};
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export function parseCommand(argv: string[]): ParsedCommand | { op: 'migrate' } {
  const [a, b, ...rest] = argv;
  const two = `${a ?? ''} ${b ?? ''}`;
  const take = (known: string[], args: string[]) => {
    const f = parseFlags(args);
    for (const k of Object.keys(f)) if (!known.includes(k)) throw new UsageError(`unknown flag --${k}`);
    return f;
  };
  switch (true) {
    case a === 'migrate':
      return { op: 'migrate' };
    case a === 'bootstrap': {
      const f = take(['email', 'name'], argv.slice(1));
      return { op: 'users.bootstrap', input: defined({ email: f.email, name: f.name }) };
    }
    case two === 'user create': {
      const f = take(['email', 'name', 'role'], rest);
      return { op: 'users.create', input: defined({ email: f.email, name: f.name, role: f.role }) };
    }
    case a === 'agent-token': {
      const f = take(['email', 'scopes', 'label'], argv.slice(1));
      return { op: 'agent_tokens.create', input: defined({ email: f.email, scopes: list(f.scopes), label: f.label }) };
    }
    case a === 'agent-connect': {
      const f = take(['email', 'scopes', 'label'], argv.slice(1));
      return { op: 'agent_connect.start', input: defined({ email: f.email, scopes: list(f.scopes), label: f.label }) };
    }
    case two === 'project create': {
      const f = take(['slug', 'name', 'owner', 'members', 'leads', 'tech-leads'], rest);
      return { op: 'projects.create', input: defined({ slug: f.slug, name: f.name, owner: f.owner, members: list(f.members), leads: list(f.leads), tech_leads: list(f['tech-leads']) }) };
    }
    case two === 'token create': {
      const f = take(['email', 'label', 'daily-limit', 'note'], rest);
      return { op: 'tokens.create_personal', input: defined({ email: f.email, label: f.label, daily_limit: int('daily-limit', f['daily-limit']), note: f.note }) };
    }
    case two === 'tools-token create': {
      const f = take(['owner', 'integrator', 'name'], rest);
      return { op: 'tokens.create_tools', input: defined({ owner: f.owner, integrator: f.integrator, name: f.name }) };
    }
    case two === 'moderation-token create': {
      const f = take(['owner', 'label', 'daily-limit', 'note'], rest);
      return { op: 'moderation.create_token', input: defined({ owner: f.owner, label: f.label, daily_limit: int('daily-limit', f['daily-limit']), note: f.note }) };
    }
    case two === 'token reset-breaker': {
      const f = take(['token-id'], rest);
      return { op: 'tokens.reset_circuit_breaker_operator', input: defined({ token_id: f['token-id'] }) };
    }
    case two === 'user grant-capability':
    case two === 'user revoke-capability': {
      const f = take(['email', 'capability'], rest);
      return { op: b === 'grant-capability' ? 'users.grant_capability' : 'users.revoke_capability', input: defined({ email: f.email, capability: f.capability }) };
    }
    case two === 'meeting create': {
      const f = take(['project', 'title', 'starts-at', 'ends-at', 'by'], rest);
      return { op: 'meetings.create', input: defined({ project_slug: f.project, title: f.title, starts_at: f['starts-at'], ends_at: f['ends-at'], created_by_email: f.by }) };
    }
    case two === 'catalog apply': {
      const f = take(['email', 'catalog', 'note'], rest);
      return { op: 'catalog.requests.create', input: defined({ email: f.email, catalog_slug: f.catalog, note: f.note }) };
    }
    default:
      throw new UsageError(a ? `unknown command "${argv.join(' ')}"` : 'no command given');
  }
}
