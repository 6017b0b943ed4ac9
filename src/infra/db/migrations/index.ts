import { Migration20261122000000Initial } from './Migration20261122000000Initial.js';

/** Explicit list (no globbing): works the same under tsx, vitest and a bundle. */
export const MIGRATIONS = [{ name: 'Migration20261122000000Initial', class: Migration20261122000000Initial }];
