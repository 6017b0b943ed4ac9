// Create a project with owner, leads and members (operator CLI for now).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError } from '../errors.js';
import { Project, ProjectMember } from './projects.entity.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { PROJECT_LIMITS, PROJECT_SLUG_PATTERN } from './projects.limits.js';
import { USER_LIMITS } from '../users/users.limits.js';

const emailList = z.array(z.email().max(USER_LIMITS.emailMax)).max(PROJECT_LIMITS.membersPerListMax).default([]);

export const CreateProjectInput = z.strictObject({
  slug: z.string().regex(PROJECT_SLUG_PATTERN, { error: `must match ${PROJECT_SLUG_PATTERN.source}` }),
  name: z.string().min(1).max(PROJECT_LIMITS.nameMax),
  owner: z.email().max(USER_LIMITS.emailMax).optional(),
  members: emailList,
  leads: emailList,
  tech_leads: emailList,
});

export const createProject = defineOperation<z.infer<typeof CreateProjectInput>, { projectId: string; slug: string }>({
  name: 'projects.create',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  input: CreateProjectInput,
  writes: true,
  handler: async (input, ctx) => {
    const { em } = ctx;
    if (await em.findOne(Project, { slug: input.slug })) {
      throw new DomainError('conflict', `project slug "${input.slug}" is already taken`, { code: 'slug_taken' });
    }
    const now = ctx.clock.now();
    const owner = input.owner ? await requireUserByEmail(em, input.owner) : null;
    const project = { id: randomUUID(), slug: input.slug, name: input.name, ownerUserId: owner?.id ?? null, createdAt: now, archivedAt: null };
    // Inserted at once: its members refer to it by a scalar foreign key, which orders no unit of work.
    await em.insert(Project, project);
    const roles = new Map<string, string>();
    // Highest role wins when an email appears in several lists.
    for (const [list, role] of [
      [input.members, 'member'],
      [input.tech_leads, 'tech_lead'],
      [input.leads, 'lead'],
    ] as const) {
      for (const email of list) roles.set((await requireUserByEmail(em, email)).id, role);
    }
    if (owner) roles.set(owner.id, 'owner');
    for (const [userId, role] of roles) em.create(ProjectMember, { projectId: project.id, userId, role, createdAt: now });
    return { projectId: project.id, slug: project.slug };
  },
});
