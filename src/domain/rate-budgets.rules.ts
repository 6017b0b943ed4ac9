// Every rate budget of the service, by name (SPEC Limits): its windows and who it counts. An
// operation names the budget it counts against (Operation.budget); the runner, the sign-in routes'
// address limiter, the circuit breaker, the metrics, the OpenAPI text and the served protocol texts
// read their numbers here.

/** Who a budget counts: a token, a person's web session, or a client address (the sign-in routes, where no one is known yet). */
export type CallerKind = 'inbound_token' | 'agent_token' | 'web_session' | 'client_address';

export interface BudgetWindow {
  limit: number;
  windowMs: number;
  /** The window's unit: in the 429 message ("per minute") and the metrics `window` label. */
  per: 'minute' | 'day';
  /**
   * Appended to the caller's key (`rl:{<tag>}<suffix>`, infra/rate-limit/rate-limiter.ts): stored
   * windows are found by it, so a changed suffix would forget every caller's count.
   */
  suffix: string;
}

export interface RateBudget {
  appliesTo: readonly CallerKind[];
  /** Budgets this one replaces for its callers: a web session counts the calls that cost an agent token `agent` against `session`. */
  insteadOf?: readonly OperationBudget[];
  /** The `budget` label of fluxdesk_rate_limit_denials_total (docs/metrics.md): kept as dashboards and alerts know it. */
  metricsLabel: string;
  /** Counted all at once or not at all; the first is the one X-RateLimit-* reports. */
  windows: readonly BudgetWindow[];
}

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;
const perMinute = (limit: number, suffix: string): BudgetWindow => ({ limit, windowMs: MINUTE_MS, per: 'minute', suffix });
const perDay = (limit: number, suffix: string): BudgetWindow => ({ limit, windowMs: DAY_MS, per: 'day', suffix });

export const RATE_BUDGETS = {
  /** Inbound tokens: publishing, the personal ping, and the tools-token calls (bulk, claims, catalog, integrators). */
  publish: { appliesTo: ['inbound_token'], metricsLabel: 'inbound_publish', windows: [perMinute(60, '')] },
  /** Inbound tokens' other calls (read-back, resolve, supplement, event types, the tools-token ping): counted apart, so they never use up `publish`. */
  request: { appliesTo: ['inbound_token'], metricsLabel: 'inbound_requests', windows: [perMinute(600, ':req')] },
  /** Agent tokens (programs): every counted call, each MCP JSON-RPC request included. */
  agent: { appliesTo: ['agent_token'], metricsLabel: 'agent', windows: [perMinute(60, ''), perDay(5000, ':day')] },
  /** A person in the web app, whose page loads make several calls at once: per session, no daily cap. */
  session: { appliesTo: ['web_session'], insteadOf: ['agent'], metricsLabel: 'agent', windows: [perMinute(300, ':web')] },
  /** POST /auth/link/<token>: guessing a link's 256-bit secret is hopeless, but each try is a database write. */
  sign_in_link: { appliesTo: ['client_address'], metricsLabel: 'sign_in_link', windows: [perMinute(20, '')] },
  /** GET /auth/oidc/start and /auth/oidc/callback, each: generous, as a whole office behind one NAT signs in at 9:00. */
  sign_in_oidc_start: { appliesTo: ['client_address'], metricsLabel: 'sign_in_oidc_start', windows: [perMinute(120, '')] },
  sign_in_oidc_callback: { appliesTo: ['client_address'], metricsLabel: 'sign_in_oidc_callback', windows: [perMinute(120, '')] },
} as const satisfies Record<string, RateBudget>;

export type BudgetName = keyof typeof RATE_BUDGETS;
/** What an operation may name: a token's budget (a web session's call counts against the one that replaces it). */
export type OperationBudget = 'publish' | 'request' | 'agent';
/** The sign-in routes' per-address budgets. */
export type AddressBudgetName = 'sign_in_link' | 'sign_in_oidc_start' | 'sign_in_oidc_callback';
export type BudgetMetricsLabel = (typeof RATE_BUDGETS)[BudgetName]['metricsLabel'];

export const BUDGET_NAMES = Object.keys(RATE_BUDGETS) as readonly BudgetName[];

/** The budget a call of `caller` counts against when its operation names `declared`. */
export function budgetFor(declared: OperationBudget, caller: CallerKind): BudgetName {
  if ((RATE_BUDGETS[declared].appliesTo as readonly CallerKind[]).includes(caller)) return declared;
  for (const name of BUDGET_NAMES) {
    const b: RateBudget = RATE_BUDGETS[name];
    if (b.insteadOf?.includes(declared) && b.appliesTo.includes(caller)) return name;
  }
  throw new Error(`no rate budget for ${caller} callers of an operation counted against '${declared}'`);
}

/**
 * The hash tag of a caller's windows: a token's or session's id (its budgets tell the windows apart
 * by suffix), or the client address per budget. Stored windows are found by it: never change it.
 */
export function windowTag(name: BudgetName, callerId: string): string {
  return (RATE_BUDGETS[name].appliesTo as readonly CallerKind[]).includes('client_address') ? `addr:${name}:${callerId}` : `tok:${callerId}`;
}

/** The budget's window of unit `per` (at most one of each). */
export function budgetWindow(name: BudgetName, per: BudgetWindow['per']): BudgetWindow {
  const w = (RATE_BUDGETS[name].windows as readonly BudgetWindow[]).find((x) => x.per === per);
  if (!w) throw new Error(`rate budget '${name}' has no window per ${per}`);
  return w;
}

/** "60 per minute and 5000 per day": a budget's windows in prose. */
export function describeBudget(name: BudgetName): string {
  return RATE_BUDGETS[name].windows.map((w) => `${w.limit} per ${w.per}`).join(' and ');
}

/**
 * Replaces `{{budget.<name>.<per>}}` in a text (the served protocol texts) by that window's limit,
 * so the text states the numbers the service enforces. An unknown placeholder throws.
 */
export function fillBudgetPlaceholders(text: string): string {
  return text.replace(/\{\{budget\.(\w+)\.(\w+)\}\}/g, (whole, name: string, per: string) => {
    if (!Object.hasOwn(RATE_BUDGETS, name) || (per !== 'minute' && per !== 'day')) throw new Error(`unknown budget placeholder ${whole}`);
    return String(budgetWindow(name as BudgetName, per).limit);
  });
}
