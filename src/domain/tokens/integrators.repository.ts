import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';

export interface IntegratorSeed {
  slug: string;
  name: string;
  description?: string;
}

/** Built-in integrator of self-service personal tokens. */
export const PERSONAL_INTEGRATOR: IntegratorSeed = {
  slug: 'personal',
  name: 'Personal tokens',
  description: 'Self-service personal tokens created by their owners (mode 1).',
};

/**
 * fluxdesk's own integrator: only deliveries sent through its tokens are "fluxdesk internal"
 * (`fluxdeskInternalTypes` of GET /api/v1/event-types), whatever other senders name their types.
 * Its tokens are made by operators (CLI `tokens.create_tools --integrator internal-os`).
 */
export const FLUXDESK_INTEGRATOR: IntegratorSeed = {
  slug: 'internal-os',
  name: 'fluxdesk',
  description: "fluxdesk's own events (event types internal-os.*).",
};

/** Slugs an admin-issued token never receives: they would join the built-in integrators above. */
export const RESERVED_INTEGRATOR_SLUGS: readonly string[] = [PERSONAL_INTEGRATOR.slug, FLUXDESK_INTEGRATOR.slug];

/** Creates the integrator if absent (race-safe) and returns its id. Prefix is `<slug>.`. */
export async function ensureIntegrator(em: EntityManager, seed: IntegratorSeed, now: Date): Promise<string> {
  const conn = em.getConnection();
  const ctx = em.getTransactionContext();
  await conn.execute(
    `insert into integrators (id, slug, name, allowed_event_prefix, description, created_at)
     values (?, ?, ?, ?, ?, ?::timestamptz) on conflict (slug) do nothing`,
    [randomUUID(), seed.slug, seed.name, `${seed.slug}.`, seed.description ?? null, now.toISOString()],
    'run',
    ctx,
  );
  const rows = (await conn.execute(`select id from integrators where slug = ?`, [seed.slug], 'all', ctx)) as { id: string }[];
  return rows[0]!.id;
}

/**
 * Serialises the issues that derive an integrator slug from one base (transaction-scoped
 * advisory lock), so concurrent issues with one label pick distinct slugs.
 */
export async function lockIntegratorSlugBase(em: EntityManager, base: string): Promise<void> {
  await run(em, `select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`integrator-slug:${base}`]);
}

/**
 * Slugs already taken among `base` and `base-*`: integrator slugs, and the integrator part of
 * catalog slugs (`catalogSlug` is the catalog slug `base` would get). The base is [a-z0-9-] only:
 * no LIKE wildcard to escape.
 */
export async function findTakenIntegratorSlugs(em: EntityManager, base: string, catalogSlug: string): Promise<string[]> {
  const rows = await run<{ slug: string }>(
    em,
    `select slug from integrators where slug = ? or slug like ?
     union select split_part(slug, '.', 1) from catalog_items where slug = ? or slug like ?`,
    [base, `${base}-%`, catalogSlug, `${base}-%`],
  );
  return rows.map((r) => r.slug);
}

export interface IntegratorRow {
  id: string;
  slug: string;
  name: string;
  allowed_event_prefix: string;
  created_at: Date | string;
  homepage_url: string | null;
  description: string | null;
}

/** The non-archived registry rows, by slug. */
export async function listLiveIntegrators(em: EntityManager): Promise<IntegratorRow[]> {
  return (await em
    .getConnection()
    .execute(
      `select id, slug, name, allowed_event_prefix, created_at, homepage_url, description from integrators where archived_at is null order by slug`,
    )) as IntegratorRow[];
}

/** A non-archived integrator by slug. */
export async function findLiveIntegratorBySlug(
  em: EntityManager,
  slug: string,
): Promise<{ id: string; slug: string; allowed_event_prefix: string } | undefined> {
  const rows = (await em.getConnection().execute(`select id, slug, allowed_event_prefix from integrators where slug = ? and archived_at is null`, [slug])) as {
    id: string;
    slug: string;
    allowed_event_prefix: string;
  }[];
  return rows[0];
}

/** An integrator's id by slug, archived or not. */
export async function findIntegratorIdBySlug(em: EntityManager, slug: string): Promise<string | undefined> {
  const rows = (await em.getConnection().execute(`select id from integrators where slug = ?`, [slug])) as { id: string }[];
  return rows[0]?.id;
}
