import { defineEntity, p } from '@mikro-orm/core';
import { AUDIT_COLUMNS } from './audit.limits.js';

/** Audit trail. `summary` never holds token values or event bodies. */
export const AuditEntrySchema = defineEntity({
  name: 'AuditEntry',
  tableName: 'audit_log',
  indexes: [{ properties: ['actorUserId', 'createdAt'] }, { properties: ['action', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    action: p.string().length(AUDIT_COLUMNS.action),
    source: p.string().length(AUDIT_COLUMNS.source),
    actorUserId: p.uuid().nullable(),
    tokenId: p.uuid().nullable(),
    targetType: p.string().length(AUDIT_COLUMNS.targetType).nullable(),
    targetId: p.string().length(AUDIT_COLUMNS.targetId).nullable(),
    requestId: p.string().length(AUDIT_COLUMNS.requestId).nullable(),
    summary: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(),
  },
});
export class AuditEntry extends AuditEntrySchema.class {}
AuditEntrySchema.setClass(AuditEntry);
