// Audit keys of the feedback tools and job (SPEC C "Audit": every write recorded with source mcp,
// the tool name and an input summary). Summaries carry ids, counts and flags: never a title,
// body or comment text. The actor is recorded even for anonymous feedback (abuse handling).
export const FEEDBACK_AUDIT = {
  created: 'feedback.created',
  commentAdded: 'feedback.comment.added',
  autoDeleted: 'feedback.auto_deleted',
} as const;

/** Audit `source` of rows written by the maintenance job (not a request surface). */
export const FEEDBACK_JOB_SOURCE = 'job';
