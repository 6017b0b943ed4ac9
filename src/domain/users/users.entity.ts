import { defineEntity, p } from '@mikro-orm/core';

export const USER_ROLES = ['member', 'admin', 'hr_admin', 'super_admin', 'assistant', 'coordinator'] as const;
export type UserRole = (typeof USER_ROLES)[number];
export const ADMIN_ROLES: readonly string[] = ['admin', 'super_admin'];

export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.uuid().primary(),
    email: p.string().length(120).unique(),
    name: p.string().length(200),
    role: p.string().length(20),
    status: p.string().length(20),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class User extends UserSchema.class {}
UserSchema.setClass(User);
