// Agent token scopes (SPEC "Agent token scopes" and the matching rules).
//  - `*` matches everything;
//  - `<module>:*` matches every scope of that module only (`read:*` never grants `write:tasks`);
//  - otherwise an exact match, plus two one-way supersets: `admin:catalog` satisfies
//    `admin:approvals`, `admin:tokens`, `admin:users`; `write:docs` satisfies `write:docs:draft`
//    and `write:docs:publish`. The reverse never holds.

const SUPERSETS: Record<string, readonly string[]> = {
  'admin:catalog': ['admin:approvals', 'admin:tokens', 'admin:users'],
  'write:docs': ['write:docs:draft', 'write:docs:publish'],
};

export const KNOWN_SCOPES = [
  '*',
  'read:*',
  'read:tasks',
  'read:feedback',
  'read:inbox',
  'read:audit',
  'read:meta',
  'read:projects',
  'read:docs',
  'read:catalog',
  'write:*',
  'write:tasks',
  'write:feedback',
  'write:docs',
  'write:docs:draft',
  'write:docs:publish',
  'write:inbox',
  'write:projects',
  'write:catalog',
  'write:inbound',
  'write:inbound:bulk',
  'admin:*',
  'admin:catalog',
  'admin:approvals',
  'admin:tokens',
  'admin:broadcast',
  'admin:on_behalf_of',
  'admin:projects',
  'admin:users',
  'code:*',
  'code:repo:bind',
] as const;

/** Does one held scope grant the required one? */
export function scopeGrants(held: string, required: string): boolean {
  if (held === '*' || held === required) return true;
  const module = required.split(':')[0];
  if (held === `${module}:*`) return true;
  return SUPERSETS[held]?.includes(required) ?? false;
}

/** A requirement is a list of alternatives (e.g. `code:repo:bind` or the deprecated `admin:projects`). */
export function hasScope(held: readonly string[], requiredAnyOf: readonly string[]): boolean {
  return requiredAnyOf.some((r) => held.some((h) => scopeGrants(h, r)));
}
