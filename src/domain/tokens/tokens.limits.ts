// Every limit and vocabulary of tokens and integrators (SPEC Limits "Daily notifications per token",
// "Claim batch"; SPEC "Personal token lifecycle"), named once: the zod schemas, the entities, the
// REST and tool texts, the served protocol texts ({{limit.token.<name>}}) and the web pages read
// them here. No imports: the web app imports this file too.

/** Lengths in characters, counts in items, daily limits in notifications per day. */
export const TOKEN_LIMITS = {
  /** A token's label (inbound and agent tokens alike). */
  labelMax: 80,
  /** A token's free-text note (also the source note of an admin-issued token). */
  noteMax: 500,
  /** An admin's reason for revoking a token. */
  revokeReasonMax: 500,
  /** The organisation's cap on a token's daily_limit (the range is 1 to it); a tools-token always has it. */
  dailyLimitMax: 1000,
  /** daily_limit of a claimed personal token (and issue_personal_inbound_token) when none is given. */
  claimDailyLimitDefault: 50,
  /** daily_limit of a self-service personal token when none is chosen (one of SELF_SERVICE_DAILY_LIMITS). */
  selfServiceDailyLimitDefault: 200,
  /** POST /api/v1/tokens/claim/batch: claims per call. */
  claimBatchMax: 100,
  /** The older claim batch: emails per call (more is 400 emails_too_many). */
  legacyClaimBatchMax: 50,
  /** `limit` of the admin token list (list_inbound_tokens, AdminListTokens). */
  listMax: 500,
  listDefault: 200,
  /** Scopes asked for one agent token. */
  agentScopesMax: 50,
  /** A connect session id as its exchange sends it (anything longer is no session). */
  connectSessionIdMax: 200,
  /** An integrator's slug (integrators.slug), wherever an input names one. */
  integratorSlugMax: 80,
  /** The slug of a new tools-token's integrator (INTEGRATOR_SLUG). */
  newIntegratorSlugMax: 63,
  integratorNameMax: 200,
  integratorHomepageUrlMax: 2000,
  /** The description of the catalog row an issued tools-token gets. */
  catalogDescriptionMax: 2000,
  /** Rotation: the previous value stays accepted this many hours (SPEC Limits "Rotation overlap"). */
  rotationOverlapHours: 24,
} as const;

/** The daily limits a person may choose for a self-service personal token. */
export const SELF_SERVICE_DAILY_LIMITS = [50, 200, 500, 1000] as const;

/** The kinds of inbound token. */
export const TOKEN_KINDS = ['personal', 'moderation', 'tools_claim'] as const;

/** The slug of a new tools-token's integrator: lowercase letters, digits and dashes. */
export const INTEGRATOR_SLUG = new RegExp(`^[a-z0-9][a-z0-9-]{0,${TOKEN_LIMITS.newIntegratorSlugMax - 1}}$`);

/**
 * Which of a personal token's events nudge its owner, set by the owner (the inbox always records):
 * every severity the owner's preferences nudge for (`all`, the default), `warn` and above,
 * `critical` only, or none.
 */
export const NUDGE_THRESHOLDS = ['all', 'warn', 'critical', 'never'] as const;

/** Widths of the varchar columns that hold a vocabulary word (inbound_tokens.kind, .status and .nudge_threshold). */
export const TOKEN_COLUMNS = { kind: 20, status: 20, nudgeThreshold: 8 } as const;
