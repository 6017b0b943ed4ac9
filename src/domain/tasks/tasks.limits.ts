// Every limit of tasks and of the owners' intake templates (SPEC Limits "Agent tool bounds":
// reviewer_user_ids 50), named once: the zod schemas, the tool texts, the served protocol texts
// ({{limit.task.<name>}}) and the web app read them here. No imports: the web app imports this
// file too.

/** Lengths in characters, counts in items. */
export const TASK_LIMITS = {
  titleMax: 200,
  descriptionMax: 8000,
  /** A comment, and the progress note of a status change (which becomes one). */
  commentMax: 8000,
  reviewersMax: 50,
  /** cc_emails and cc_user_ids, each (no bound in the spec; ours). */
  ccMax: 50,
  /** A user id as a task input takes it (a UUID; anything longer is none). */
  userIdMax: 64,
  /** A task tree is at most this many levels deep (a root task is level 1). */
  depthMax: 10,
  /** list_tasks `limit`. */
  listMax: 200,
  listDefault: 50,
  /** get_task: the newest comments it shows (comment_count counts all). */
  commentsShown: 50,
  /** An owner's intake description: its label and body. */
  intakeLabelMax: 200,
  intakeBodyMax: 8000,
  /** An owner's intake checklists: how many, each one's title, items and item length. */
  intakeChecklistsMax: 20,
  intakeChecklistTitleMax: 200,
  intakeChecklistItemsMax: 50,
  intakeChecklistItemMax: 200,
} as const;
