import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';

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
