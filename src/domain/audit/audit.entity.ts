import { defineEntity, p } from '@mikro-orm/core';

/** Audit trail. `summary` never holds token values or event bodies. */
export const AuditEntrySchema = defineEntity({
  name: 'AuditEntry',
  tableName: 'audit_log',
  indexes: [{ properties: ['actorUserId', 'createdAt'] }, { properties: ['action', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    action: p.string().length(60),
    source: p.string().length(20),
    actorUserId: p.uuid().nullable(),
    tokenId: p.uuid().nullable(),
    targetType: p.string().length(40).nullable(),
    targetId: p.string().length(120).nullable(),
    requestId: p.string().length(130).nullable(),
    summary: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(),
  },
});
export class AuditEntry extends AuditEntrySchema.class {}
AuditEntrySchema.setClass(AuditEntry);
