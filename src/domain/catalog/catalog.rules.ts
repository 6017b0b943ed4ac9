// Pure catalog rules (SPEC "Catalog item", "Catalog approval status").

export const ASSET_TYPES = ['saas_account', 'api_key', 'server_access', 'repo_access', 'ai_server', 'account_resource', 'other'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

/** Live-access statuses (agent side); the REST surface shows them as `approved`. */
export const LIVE_APPROVED = ['approved', 'in_execution', 'completed'] as const;
export const LIVE_STATUSES = ['pending', ...LIVE_APPROVED] as const;
export const REST_APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'revoked'] as const;
export type RestApprovalStatus = (typeof REST_APPROVAL_STATUSES)[number];

/** Stored request status -> REST value. Withdrawn and cancelled requests no longer grant access: `revoked`. */
export function restApprovalStatus(stored: string): RestApprovalStatus {
  if (stored === 'pending') return 'pending';
  if ((LIVE_APPROVED as readonly string[]).includes(stored)) return 'approved';
  if (stored === 'rejected') return 'rejected';
  return 'revoked';
}

/** REST filter value -> stored statuses. */
export function storedStatusesFor(rest: RestApprovalStatus): string[] {
  switch (rest) {
    case 'pending':
      return ['pending'];
    case 'approved':
      return [...LIVE_APPROVED];
    case 'rejected':
      return ['rejected'];
    case 'revoked':
      return ['revoked', 'withdrawn', 'cancelled'];
  }
}

const CATEGORY_LABELS: Record<string, string> = {
  'llm-backend': 'LLM backend',
  network: 'Network',
  'inbound-integration': 'Inbound integration',
  'outbound-integration': 'Outbound integration',
  'mcp-agent': 'MCP agent',
  'dev-environment': 'Development environment',
  'cross-border-comm': 'Cross-border communication',
};
export const STANDARD_CATEGORIES = Object.keys(CATEGORY_LABELS);

/** Best-effort English label; legacy display strings (with emoji) are kept as they are. */
export function categoryDisplay(category: string | null): string {
  if (category === null) return '';
  return CATEGORY_LABELS[category] ?? category;
}

/** Slug of the catalog row created with an integrator's tools-token (`<integrator-slug>.<resource>`). */
export function integratorCatalogSlug(integratorSlug: string): string {
  return `${integratorSlug}.inbound-token`;
}

// Agent-side reads (status vocabulary of SPEC "Catalog approval status": stored statuses as they are)

/** `list_approvals_for_user` filter -> stored statuses (`all`: no filter). */
export const AGENT_APPROVAL_FILTERS = {
  approved: [...LIVE_APPROVED],
  revoked: ['withdrawn', 'rejected', 'cancelled', 'revoked'],
  pending: ['pending'],
  all: null,
} as const satisfies Record<string, readonly string[] | null>;
export type AgentApprovalFilter = keyof typeof AGENT_APPROVAL_FILTERS;
