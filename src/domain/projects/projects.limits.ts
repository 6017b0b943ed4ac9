// Every limit of a project, named once: the projects entity, the zod schemas of every area that
// names a project by slug, the served protocol texts ({{limit.project.<name>}}) and the web forms
// read them here. No imports: the web app imports this file too.

/** Lengths in characters, counts in items. */
export const PROJECT_LIMITS = {
  /** A project's slug (projects.slug), wherever an input names a project by it. */
  slugMax: 80,
  nameMax: 200,
  /** Creating a project: each of its member, lead and tech-lead email lists. */
  membersPerListMax: 500,
} as const;

/** A new project's slug: lowercase letters, digits and dashes, at most PROJECT_LIMITS.slugMax. */
export const PROJECT_SLUG_PATTERN = new RegExp(`^[a-z0-9][a-z0-9-]{0,${PROJECT_LIMITS.slugMax - 1}}$`);

/** Width of the varchar column that holds a PROJECT_ROLES word (project_members.role). */
export const PROJECT_COLUMNS = { role: 20 } as const;
