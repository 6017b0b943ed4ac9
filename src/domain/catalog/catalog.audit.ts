// Audit actions of catalog requests (apply, withdraw, review). The summary holds ids, statuses and
// flags, never the notes' text.
export const CATALOG_AUDIT = {
  requestFiled: 'catalog.request.filed',
  requestWithdrawn: 'catalog.request.withdrawn',
  requestApproved: 'catalog.request.approved',
  requestRejected: 'catalog.request.rejected',
} as const;
