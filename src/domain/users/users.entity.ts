import { defineEntity, p } from '@mikro-orm/core';
import { USER_COLUMNS, USER_LIMITS } from './users.limits.js';

export const USER_ROLES = ['member', 'admin', 'hr_admin', 'super_admin', 'assistant', 'coordinator'] as const;
export type UserRole = (typeof USER_ROLES)[number];
export const ADMIN_ROLES: readonly string[] = ['admin', 'super_admin'];

export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.uuid().primary(),
    email: p.string().length(USER_LIMITS.emailMax).unique(),
    name: p.string().length(USER_LIMITS.nameMax),
    role: p.string().length(USER_COLUMNS.role),
    status: p.string().length(USER_COLUMNS.status),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class User extends UserSchema.class {}
UserSchema.setClass(User);
