// The proto comments (the contract text of internal callers) state the areas' limits in prose: each
// figure they give is the one of src/domain/<area>/<area>.limits.ts (and request.limits.ts), so a
// changed limit fails here until the comment says so too. The spec's figures are checked as
// literals in area-limits.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG_LIMITS } from '../../src/domain/catalog/catalog.limits.js';
import { DAILY_UPDATE_LIMITS } from '../../src/domain/daily-updates/daily-updates.limits.js';
import { DOC_LIMITS } from '../../src/domain/docs/docs.limits.js';
import { FEEDBACK_LIMITS } from '../../src/domain/feedback/feedback.limits.js';
import { MODERATION_LIMITS } from '../../src/domain/moderation/moderation.limits.js';
import { NUDGE_LIMITS } from '../../src/domain/nudges/nudges.limits.js';
import { REQUEST_LIMITS } from '../../src/domain/request.limits.js';
import { TASK_LIMITS } from '../../src/domain/tasks/tasks.limits.js';
import { TOKEN_LIMITS } from '../../src/domain/tokens/tokens.limits.js';
import { USER_LIMITS } from '../../src/domain/users/users.limits.js';

const ROOT = join(import.meta.dirname, '../..');
/** A proto file's comments as one line: `//` markers and runs of whitespace as one space. */
const comments = (file: string) =>
  readFileSync(join(ROOT, 'proto/fluxdesk', file), 'utf8')
    .replace(/\s*\/\/\s*/g, ' ')
    .replace(/\s+/g, ' ');
const expectPhrases = (file: string, phrases: string[]) => {
  const text = comments(file);
  for (const phrase of phrases) expect(text, phrase).toContain(phrase);
};

describe('the area limits as the proto comments state them', () => {
  const R = REQUEST_LIMITS;
  const U = USER_LIMITS;

  it('catalog/v1/catalog.proto', () => {
    const C = CATALOG_LIMITS;
    expectPhrases('catalog/v1/catalog.proto', [
      `The optional \`x-request-id\` metadata (at most ${R.requestIdMax} chars, \`[A-Za-z0-9_-]\`)`,
      `\`idempotency-key\` metadata (at most ${R.idempotencyKeyMax} chars; replays for ${R.idempotencyKeptHours} h)`,
      `ListApprovals lists approvals, newest request first, at most ${C.approvalsListMax}`,
      `Employee's email address; valid email, at most ${U.emailMax} chars;`,
      `Slug of a live (not archived) catalog row; 1-${C.slugMax} chars.`,
      `Reviewer's note stored with the decision; at most ${C.reviewNoteMax} chars.`,
      `Link to the resource; at most ${C.urlMax} chars.`,
      `Only rows of this exact category; 1-${C.categoryMax} chars.`,
      `Page size; 1-${C.listMax}; unset means ${C.listDefault}.`,
      `New display name; 1-${C.nameMax} chars.`,
    ]);
  });

  it('tokens/v1/tokens.proto and account/v1/account.proto', () => {
    const T = TOKEN_LIMITS;
    expectPhrases('tokens/v1/tokens.proto', [
      `(at most ${R.requestIdMax} chars, \`[A-Za-z0-9_-]\`)`,
      `ClaimTokenBatch claims for 1-${T.claimBatchMax} employees in one call`,
      `Label shown in the employee's integrations list; 1-${T.labelMax} chars.`,
      `Daily notification limit of the claimed token; 1-${T.dailyLimitMax}. Unset means ${T.claimDailyLimitDefault}.`,
      `each validated like a single ClaimTokenRequest; 1-${T.claimBatchMax} items.`,
    ]);
    expectPhrases('account/v1/account.proto', [
      `Label shown in the caller's integrations list; 1-${T.labelMax} chars. Required.`,
      `Daily notification limit of the token; 1-${T.dailyLimitMax}. Unset means ${T.claimDailyLimitDefault}.`,
      `Why the token is revoked; at most ${T.revokeReasonMax} chars;`,
      `1-${T.listMax}, default ${T.listDefault}.`,
      `Email address of the user; valid email, at most ${U.emailMax} chars. Required.`,
      `at most ${T.agentScopesMax}. Empty means \`*\`.`,
    ]);
  });

  it('moderation/v1/moderation.proto', () => {
    const M = MODERATION_LIMITS;
    expectPhrases('moderation/v1/moderation.proto', [
      `Token label, 1-${TOKEN_LIMITS.labelMax} chars;`,
      `Free-text note kept on the token (at most ${TOKEN_LIMITS.noteMax} chars; never a secret).`,
      `Daily notification budget 1-${TOKEN_LIMITS.dailyLimitMax}, default ${M.tokenDailyLimitDefault}.`,
      `1-${M.listMax}, default ${M.listDefault}.`,
      `Optional reason, at most ${M.dismissReasonMax} chars.`,
    ]);
  });

  it('notifications/v1/notifications.proto', () => {
    const N = NUDGE_LIMITS;
    expectPhrases('notifications/v1/notifications.proto', [
      `A user keeps at most ${N.pushSubscriptionsPerUser} subscriptions`,
      `Incoming-webhook URL (https, at most ${N.receiverUrlMax} chars).`,
      `1-${N.failedListMax}, default ${N.failedListDefault}.`,
      `IANA time zone, e.g. \`Europe/Berlin\`; at most ${N.timeZoneMax} chars.`,
    ]);
  });

  it('work/v1: tasks, daily updates, feedback, documents, projects', () => {
    const T = TASK_LIMITS;
    const D = DAILY_UPDATE_LIMITS;
    const F = FEEDBACK_LIMITS;
    expectPhrases('work/v1/tasks.proto', [
      `How many tasks at most; 1-${T.listMax}, default ${T.listDefault}.`,
      `The newest comments (at most ${T.commentsShown}), oldest first.`,
      `Title; 1-${T.titleMax} chars. Required.`,
      `Description (markdown); at most ${T.descriptionMax} chars.`,
      `(at most ${T.depthMax} levels`,
      `Reviewer user ids; at most ${T.reviewersMax}.`,
      `Emails of people to cc; at most ${T.ccMax}.`,
      `A note stored as a comment by the caller; 1-${T.commentMax} chars.`,
      `Comment text; 1-${T.commentMax} chars. Required.`,
      `Task ids or codes the caller can see; at most ${D.mainTasksMax};`,
      `When the caller can be reached; at most ${D.contactWindowMax} chars.`,
      `Blockers; at most ${D.blockersMax} chars.`,
      `Free note; at most ${D.noteMax} chars.`,
    ]);
    expectPhrases('work/v1/feedback.proto', [
      `A body over ${F.bodyMax} chars is`,
      `How many at most; 1-${F.listMax}, default ${F.listDefault}.`,
      `The newest comments (at most ${F.commentsShown}), oldest first.`,
      `Title; 1-${F.titleMax} chars. Required.`,
      `Body; 1-${F.bodyMax} chars. Required.`,
      `Comment text; 1-${F.commentMax} chars. Required.`,
    ]);
    expectPhrases('work/v1/docs.proto', [
      `How many at most; 1-${DOC_LIMITS.listMax}, default ${DOC_LIMITS.listDefault}.`,
      `How many at most; 1-${DOC_LIMITS.tagListMax}, default ${DOC_LIMITS.tagListDefault}.`,
    ]);
    expectPhrases('work/v1/projects.proto', [`Email address of the user; at most ${U.emailMax} chars. Required.`]);
  });
});
