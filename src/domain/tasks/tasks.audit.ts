// Audit keys of the task tools (SPEC C "Audit": every write recorded with source mcp, the tool
// name and an input summary). Summaries carry ids, codes, statuses, counts and flags: never a
// title, description, comment or progress-note body.
export const TASK_AUDIT = {
  created: 'task.created',
  draftCreated: 'task.draft.created',
  draftPublished: 'task.draft.published',
  claimed: 'task.claimed',
  statusChanged: 'task.status.changed',
  commentAdded: 'task.comment.added',
  intakeTemplatesSet: 'task.intake_templates.set',
} as const;
