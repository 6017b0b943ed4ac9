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

/**
 * A person's own request as the catalog portal shows it (CatalogPortalService): the REST vocabulary,
 * plus `withdrawn` for a request its applicant took back (REST counts it as `revoked`).
 */
export const OWN_REQUEST_STATUSES = [...REST_APPROVAL_STATUSES, 'withdrawn'] as const;
export type OwnRequestStatus = (typeof OWN_REQUEST_STATUSES)[number];

export function ownRequestStatus(stored: string): OwnRequestStatus {
  return stored === 'withdrawn' ? 'withdrawn' : restApprovalStatus(stored);
}

/**
 * The caller's status for a catalog row, from their latest request for it (a live one first):
 * `none` without a request, or when they withdrew it (they may apply again).
 */
export const ROW_STATUSES = ['none', ...REST_APPROVAL_STATUSES] as const;
export type RowStatus = (typeof ROW_STATUSES)[number];

export function rowStatusOf(stored: string | null): RowStatus {
  return stored === null || stored === 'withdrawn' ? 'none' : restApprovalStatus(stored);
}

/** Why a request that is no longer pending can be neither reviewed nor withdrawn (code `not_pending`). */
export function notPendingMessage(stored: string): string {
  if (stored === 'withdrawn') return 'request was withdrawn by the applicant';
  if (stored === 'rejected' || (LIVE_APPROVED as readonly string[]).includes(stored)) return `request was already reviewed: ${restApprovalStatus(stored)}`;
  return `request was ${restApprovalStatus(stored)}`;
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

/** The label of the group of rows that have no category. */
export const UNCATEGORISED_LABEL = 'Other';

export interface CategoryGroup<T> {
  /** The category as stored; '' for rows without one. */
  category: string;
  display: string;
  rows: T[];
}

/**
 * Rows grouped by category (the catalog a person browses): the standard categories in their
 * order, then other categories by label, rows without one last; rows keep their given order.
 */
export function groupByCategory<T extends { category: string | null }>(rows: readonly T[]): CategoryGroup<T>[] {
  const groups = new Map<string, CategoryGroup<T>>();
  for (const r of rows) {
    const key = r.category ?? '';
    let g = groups.get(key);
    if (!g) {
      g = { category: key, display: key === '' ? UNCATEGORISED_LABEL : categoryDisplay(key), rows: [] };
      groups.set(key, g);
    }
    g.rows.push(r);
  }
  const rank = (g: CategoryGroup<T>) =>
    g.category === ''
      ? STANDARD_CATEGORIES.length + 1
      : STANDARD_CATEGORIES.includes(g.category)
        ? STANDARD_CATEGORIES.indexOf(g.category)
        : STANDARD_CATEGORIES.length;
  return [...groups.values()].sort((a, b) => rank(a) - rank(b) || a.display.localeCompare(b.display, 'en'));
}
