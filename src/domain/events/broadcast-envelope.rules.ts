// `broadcast_event` error envelopes (SPEC Errors: `error_envelope {code, title, detail, field,
// next_action}` with the hint table). `next_action` is a one-line operator hint naming a tool or an
// interface path; it never carries a secret or an email list.

export interface ErrorEnvelope {
  code: string;
  title: string;
  detail: string;
  field: string | null;
  next_action?: string;
}

const HINTS: Record<string, { title: string; next_action: string }> = {
  tools_token_not_owned: {
    title: 'Tools-token not yours',
    next_action: 'issue your own tools-claim token with issue_admin_tools_claim_token and pass its id as tools_token_id',
  },
  no_approved_request: {
    title: 'No approved request',
    next_action: 'the recipient applies in /team-support and is approved, or an admin assigns with assign_catalog_to_employee',
  },
  no_token: { title: 'No token to publish with', next_action: 'pass tools_token_id with auto_claim true' },
  user_not_found: { title: 'User not found', next_action: 'drop the email, or invite the user with invite_user' },
  user_inactive: { title: 'User inactive', next_action: 'drop the email or reactivate the user' },
  recipient_hint_forbidden: { title: 'Recipient not allowed', next_action: 'remove the recipient field' },
  recipient_hint_required: { title: 'Recipient required', next_action: 'add the recipient field' },
  cross_project_blocked: { title: 'Cross-project delivery blocked', next_action: 'remove project_slug or use an active project the recipient belongs to' },
  project_not_found: { title: 'Project not found', next_action: 'remove project_slug or use an active project' },
  project_archived: { title: 'Project archived', next_action: 'remove project_slug or use an active project' },
  token_disabled: { title: 'Token disabled', next_action: 'the recipient or an admin re-enables the token' },
  circuit_open: { title: 'Circuit breaker open', next_action: 'wait for the breaker to recover, or have an admin reset it' },
  rate_limit_global: { title: 'Daily limit reached', next_action: 'wait for the daily counter reset at 00:00 UTC or raise daily_limit' },
  forbidden_admin_only: { title: 'Admin only', next_action: 'use an admin caller or the single-event endpoint POST /api/v1/events' },
  schema_invalid: { title: 'Invalid event', next_action: 'fix the named field' },
  auto_claim_lookup_failed: {
    title: 'Auto-claim failed',
    next_action: 'retry later, or claim first with POST /api/v1/tokens/claim/batch and call with auto_claim false',
  },
};

const DETAILS: Record<string, string> = {
  tools_token_not_owned: 'tools_token_id is not an active tools-claim token of yours',
  no_approved_request: "the recipient has no approved request for the tools-token's catalog row",
  no_token: 'no tools_token_id was given, so no personal token can be used or claimed for the recipient',
  user_not_found: 'no user has this email',
  user_inactive: 'the user is not active',
  cross_project_blocked: 'the recipient is not a member of the project',
  project_not_found: 'the project does not exist',
  project_archived: 'the project is archived',
  token_disabled: "the recipient's personal token of this integrator is disabled",
  auto_claim_lookup_failed: 'minting a personal token for the recipient failed',
};

/** The envelope of one failure code (a `schema_invalid:<detail>` row keeps its detail). */
export function errorEnvelope(code: string, field: string | null, detail?: string): ErrorEnvelope {
  const [base, inlineDetail] = code.startsWith('schema_invalid:') ? ['schema_invalid', code.slice('schema_invalid:'.length)] : [code, undefined];
  const hint = HINTS[base];
  const env: ErrorEnvelope = {
    code: base,
    title: hint?.title ?? base.replace(/_/g, ' '),
    detail: detail ?? inlineDetail ?? DETAILS[base] ?? base.replace(/_/g, ' '),
    field,
  };
  if (hint) env.next_action = hint.next_action;
  return env;
}

/** Which input a row failure points at. */
export function rowErrorField(code: string, index: number): string | null {
  if (code === 'cross_project_blocked') return 'project_slug';
  if (code === 'no_token') return 'tools_token_id';
  return `recipients[${index}]`;
}
