// The widths of the audit trail's columns (audit_log), named once: the entity reads them here. No
// imports.

/** Widths of the varchar columns of audit_log, in characters. */
export const AUDIT_COLUMNS = {
  /** An audit action name (`inbound.token.revoked_by_admin`). */
  action: 60,
  /** The surface the call came through (context.ts Surface). */
  source: 20,
  targetType: 40,
  targetId: 120,
  /** The request id: a client's X-Request-Id (REQUEST_LIMITS.requestIdMax) or a generated `req_<id>`. */
  requestId: 130,
} as const;
