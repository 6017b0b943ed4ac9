// Project roles (src/domain/projects/project-roles.rules.ts): the effective role, who may assign
// others, who sees a project.
import { describe, expect, it } from 'vitest';
import { canAssignOthers, canSeeProject, effectiveProjectRole, higherRole } from '../../src/domain/projects/project-roles.rules.js';

describe('project roles', () => {
  it('the owner column wins; unknown member roles are ignored', () => {
    expect(effectiveProjectRole('u', { ownerUserId: 'u' }, 'member')).toBe('owner');
    expect(effectiveProjectRole('u', { ownerUserId: 'x' }, 'tech_lead')).toBe('tech_lead');
    expect(effectiveProjectRole('u', { ownerUserId: null }, 'weird')).toBeNull();
    expect(higherRole('lead', 'tech_lead')).toBe('lead');
  });
  it('assigning others: super admin, project owner, project tech lead only', () => {
    expect(canAssignOthers('super_admin', null)).toBe(true);
    expect(canAssignOthers('member', 'owner')).toBe(true);
    expect(canAssignOthers('member', 'tech_lead')).toBe(true);
    expect(canAssignOthers('admin', 'lead')).toBe(false);
    expect(canAssignOthers('admin', null)).toBe(false);
    expect(canAssignOthers('member', 'member')).toBe(false);
  });
  it('visibility: any project role, or an org-wide role', () => {
    expect(canSeeProject('member', 'member')).toBe(true);
    expect(canSeeProject('member', null)).toBe(false);
    expect(canSeeProject('hr_admin', null)).toBe(false);
    for (const r of ['admin', 'super_admin', 'coordinator']) expect(canSeeProject(r, null)).toBe(true);
  });
});
