// Every limit of a user account, named once: the users entity, every zod schema of any area that
// names a user by email, the served protocol texts ({{limit.user.<name>}}) and the web forms read
// them here. No imports: the web app imports this file too.

/** Lengths in characters, counts in items. */
export const USER_LIMITS = {
  /** A user's email address (users.email), wherever an input names a user by it. */
  emailMax: 120,
  nameMax: 200,
  /** search_user_by_username: the email local part searched for. */
  usernameMax: 120,
  /** search_user_by_username: the most users one search returns. */
  searchResultsMax: 20,
} as const;

/** Widths of the varchar columns that hold a vocabulary word (USER_ROLES, USER_STATUSES). */
export const USER_COLUMNS = { role: 20, status: 20 } as const;
