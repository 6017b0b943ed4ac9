// The inbox notices of catalog requests (docs/contract.md "Catalog for people"): the applicant
// learns the decision on their request, whichever surface reviewed it; admins learn that a request
// waits for review, at most once per row per CATALOG_LIMITS.reviewAlertWindowMinutes each, so a
// burst of requests is one notice. Both go through the inbox feed (open inboxes show them live)
// and never carry secrets.
import type { EntityManager } from '@mikro-orm/core';
import type { OpContext } from '../context.js';
import { addAnnouncedNotification } from '../inbox/announce-notification.js';
import { EVENT_LIMITS } from '../events/event.limits.js';
import { ADMIN_ROLES } from '../users/users.entity.js';
import { claimReviewAlerts } from './catalog.repository.js';
import { CATALOG_LIMITS } from './catalog.limits.js';

export type NoticeContext = Pick<OpContext, 'clock' | 'config' | 'afterCommit' | 'ports'>;

/** The applicant's own catalog page: where each notice about their requests leads. */
export const ownCatalogUrl = (ctx: Pick<OpContext, 'config'>): string => `${ctx.config.publicBaseUrl}/catalog`;
/** The admins' review queue. */
export const reviewQueueUrl = (ctx: Pick<OpContext, 'config'>): string => `${ctx.config.publicBaseUrl}/admin/requests`;

export function noticeOfDecision(
  em: EntityManager,
  ctx: NoticeContext,
  r: { applicantUserId: string; itemName: string; decision: 'approve' | 'reject'; reviewNote: string | null; reviewerUserId: string },
): void {
  const word = r.decision === 'approve' ? 'approved' : 'rejected';
  addAnnouncedNotification(ctx, em, ctx.clock.now(), {
    userId: r.applicantUserId,
    title: `${r.itemName}: request ${word}`,
    summary: r.reviewNote ? `Reviewer's note: ${r.reviewNote}`.slice(0, EVENT_LIMITS.summaryMax) : null,
    targetUrl: ownCatalogUrl(ctx),
    actorUserId: r.reviewerUserId,
  });
}

/** Tells the admins (except the applicant and whoever filed it) that a request for the row waits for review. */
export async function alertReviewers(
  em: EntityManager,
  ctx: NoticeContext,
  r: { itemId: string; itemName: string; applicantUserId: string; applicantEmail: string; filedByUserId: string },
): Promise<void> {
  const now = ctx.clock.now();
  const admins = await claimReviewAlerts(em, r.itemId, ADMIN_ROLES, [r.applicantUserId, r.filedByUserId], now, CATALOG_LIMITS.reviewAlertWindowMinutes);
  for (const adminId of admins) {
    addAnnouncedNotification(ctx, em, now, {
      userId: adminId,
      title: `${r.itemName}: new access request`,
      summary: `${r.applicantEmail} applied; the request waits for review.`,
      targetUrl: reviewQueueUrl(ctx),
      actorUserId: r.applicantUserId,
    });
  }
}
