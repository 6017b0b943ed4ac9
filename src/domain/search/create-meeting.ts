// `meetings.create` (operator only). SPEC C names meetings only as a `search` type, so the model is
// the minimum search needs: a title, a time and a project (Migration20261122110000Search). No
// agent tool creates, lists or edits meetings.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineOperation } from '../context.js';
import { DomainError } from '../errors.js';
import { requireUserByEmail } from '../users/users.repository.js';
import { findLiveProjectBySlug, insertMeeting } from './meetings.repository.js';
import { meetingUrl } from './search.rules.js';
import { USER_LIMITS } from '../users/users.limits.js';
import { PROJECT_LIMITS } from '../projects/projects.limits.js';
import { SEARCH_LIMITS } from './search.limits.js';

const dateTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with offset' });

export const CreateMeetingInput = z
  .strictObject({
    project_slug: z.string().trim().toLowerCase().min(1).max(PROJECT_LIMITS.slugMax),
    title: z.string().trim().min(1).max(SEARCH_LIMITS.meetingTitleMax),
    starts_at: dateTime,
    ends_at: dateTime.optional(),
    created_by_email: z.email().max(USER_LIMITS.emailMax),
  })
  .superRefine((v, c) => {
    if (v.ends_at !== undefined && Date.parse(v.ends_at) < Date.parse(v.starts_at)) {
      c.addIssue({ code: 'custom', path: ['ends_at'], message: 'must not be before starts_at', params: { code: 'before_start' } });
    }
  });

export interface CreateMeetingResult {
  meeting_id: string;
  project_slug: string;
  title: string;
  starts_at: string;
  ends_at: string | null;
  url: string;
}

export const createMeeting = defineOperation<z.infer<typeof CreateMeetingInput>, CreateMeetingResult>({
  name: 'meetings.create',
  auth: { kind: 'system' },
  budget: null,
  idempotent: false,
  writes: true,
  input: CreateMeetingInput,
  handler: async (input, ctx) => {
    const em = ctx.em;
    const project = await findLiveProjectBySlug(em, input.project_slug);
    if (!project) throw new DomainError('not_found', `project "${input.project_slug}" not found`, { code: 'not_found' });
    const creator = await requireUserByEmail(em, input.created_by_email);
    const id = randomUUID();
    const startsAt = new Date(input.starts_at);
    const endsAt = input.ends_at === undefined ? null : new Date(input.ends_at);
    await insertMeeting(em, { id, projectId: project.id, title: input.title, startsAt, endsAt, createdByUserId: creator.id, createdAt: ctx.clock.now() });
    return {
      meeting_id: id,
      project_slug: project.slug,
      title: input.title,
      starts_at: startsAt.toISOString(),
      ends_at: endsAt?.toISOString() ?? null,
      url: meetingUrl(ctx.config.publicBaseUrl, id),
    };
  },
});
