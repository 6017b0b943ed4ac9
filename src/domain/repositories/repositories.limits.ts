// Every limit of project repositories and their push webhook (SPEC C bind_project_repository,
// list_project_repository_commits), named once: the zod schemas, the webhook's body limit, the tool
// texts and the served protocol texts ({{limit.repository.<name>}}) read them here
// (repositories.rules.ts re-exports REPO_LIMITS for its importers). No imports.

/** Lengths in characters, counts in items, the push body in bytes. */
export const REPO_LIMITS = {
  /** repo_url and ssh_url as given. */
  url: 500,
  branch: 255,
  /** A repository path: its segments (groups and name) and each segment's length. */
  maxSegments: 5,
  segmentMax: 100,
  /** A commit's title (its message's first non-empty line). */
  title: 300,
  shortSha: 7,
  /** list_project_repository_commits `limit`. */
  commitsDefault: 20,
  commitsMax: 100,
  /** Commits stored from one push delivery. */
  commitsPerPush: 2000,
  /** Push webhook body (bytes). */
  pushBody: 1024 * 1024,
  /** The push payload's fields as the webhook reads them. */
  pushSignatureMax: 200,
  pushEventMax: 100,
  pushRefMax: 300,
  pushFullNameMax: 300,
  commitMessageMax: 100_000,
  commitUrlMax: 2000,
  /** A commit's url is shown (as a link) only up to this length. */
  commitLinkMax: 1000,
  commitAuthorNameMax: 200,
  commitAuthorEmailMax: 320,
} as const;
