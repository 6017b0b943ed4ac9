// `create_feedback` (SPEC C write tools; scope write:feedback; structured errors):
//  - title and body lengths (FEEDBACK_LIMITS): a longer body is rejected (structured validation_failed,
//    title body_too_long), never truncated;
//  - a missing project_slug, or one naming no active project the caller can see, puts the
//    feedback in the triage pool (triage_reason no_project / unknown_project; unknown and invisible
//    slugs answer alike, so nothing tells whether a project exists);
//  - is_anonymous hides the author from everyone but the author (stored for abuse handling);
//  - auto_delete_after (ISO-8601 duration, PT1H..P365D) sets delete_after = now + duration; the
//    `feedback.auto-delete` job removes it and reads hide it from that moment.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { recordToolAudit } from '../audit/tool-audit.js';
import { defineOperation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { findVisibleProject } from '../projects/projects.repository.js';
import { FEEDBACK_AUDIT } from './feedback.audit.js';
import { assertBodyLength } from './feedback-errors.js';
import { insertFeedback } from './feedback.repository.js';
import { deleteAfterFrom, feedbackUrl, INITIAL_FEEDBACK_STATUS, parseAutoDeleteAfter, placeFeedback } from './feedback.rules.js';
import { PROJECT_LIMITS } from '../projects/projects.limits.js';
import { FEEDBACK_LIMITS } from './feedback.limits.js';

const nonBlank = (s: string) => s.trim().length > 0;

export const CreateFeedbackInput = z.strictObject({
  title: z.string().trim().min(1).max(FEEDBACK_LIMITS.titleMax),
  /** At most FEEDBACK_LIMITS.bodyMax characters (checked by the tool: a structured validation_failed, nothing stored). */
  body: z
    .string()
    .refine(nonBlank, { error: 'must not be empty', params: { code: 'required' } })
    .meta({ maxLength: FEEDBACK_LIMITS.bodyMax }),
  /** Omitted, null or empty: the triage pool. */
  project_slug: z.string().trim().max(PROJECT_LIMITS.slugMax).nullish(),
  is_anonymous: z.boolean().default(false),
  /** ISO-8601 duration in weeks, days and/or hours (P30D, P2W, PT12H, P1DT12H), PT1H..P365D. */
  auto_delete_after: z
    .string()
    .max(FEEDBACK_LIMITS.autoDeleteAfterMax)
    .transform((s, ctx) => {
      const r = parseAutoDeleteAfter(s);
      if ('error' in r) {
        ctx.addIssue({ code: 'custom', message: r.error, params: { code: 'invalid_duration' } });
        return z.NEVER;
      }
      return r.hours;
    })
    .optional(),
});
export type CreateFeedbackInput = z.infer<typeof CreateFeedbackInput>;

export const CreateFeedbackOutput = z.object({
  feedback_id: z.uuid(),
  url: z.string(),
  /** null in the triage pool. */
  project_slug: z.string().nullable(),
  triage: z.boolean(),
  triage_reason: z.enum(['no_project', 'unknown_project']).nullable(),
  is_anonymous: z.boolean(),
  status: z.string(),
  delete_after: z.string().nullable(),
});
export type CreateFeedbackResult = z.infer<typeof CreateFeedbackOutput>;

export const createFeedback = defineOperation<CreateFeedbackInput, CreateFeedbackResult, AgentPrincipal>({
  name: 'feedback.create',
  auth: { kind: 'agent' },
  budget: 'agent',
  requiredScopes: ['write:feedback'],
  idempotent: true,
  input: CreateFeedbackInput,
  writes: true,
  handler: async (input, ctx) => {
    assertBodyLength(input.body);
    const principal = ctx.principal;
    const slug = input.project_slug ? input.project_slug.toLowerCase() : null;
    const { em } = ctx;
    const project = slug ? await findVisibleProject(em, slug, principal) : undefined;
    const place = placeFeedback(slug, project?.id ?? null);
    const now = ctx.clock.now();
    const deleteAfter = input.auto_delete_after !== undefined ? deleteAfterFrom(now, input.auto_delete_after) : null;
    const id = randomUUID();
    await insertFeedback(em, {
      id,
      projectId: place.projectId,
      authorUserId: principal.userId,
      isAnonymous: input.is_anonymous,
      title: input.title,
      body: input.body,
      status: INITIAL_FEEDBACK_STATUS,
      triage: place.triage,
      requestedProjectSlug: place.reason === 'unknown_project' ? slug : null,
      now,
      deleteAfter,
    });
    recordToolAudit(em, ctx, {
      tool: 'create_feedback',
      action: FEEDBACK_AUDIT.created,
      targetType: 'feedback',
      targetId: id,
      summary: {
        projectId: place.projectId,
        triage: place.triage,
        triageReason: place.reason,
        anonymous: input.is_anonymous,
        bodyLength: input.body.length,
        autoDeleteHours: input.auto_delete_after ?? null,
      },
    });
    return {
      feedback_id: id,
      url: feedbackUrl(ctx.config, id),
      project_slug: project && !place.triage ? project.slug : null,
      triage: place.triage,
      triage_reason: place.reason,
      is_anonymous: input.is_anonymous,
      status: INITIAL_FEEDBACK_STATUS,
      delete_after: deleteAfter?.toISOString() ?? null,
    };
  },
});
