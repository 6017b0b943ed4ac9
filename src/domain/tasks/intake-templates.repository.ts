// Owner intake templates (table owner_intake_templates). Plain SQL in the caller's transaction.
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import type { IntakeChecklist, OwnerTemplates } from './intake-templates.rules.js';

export async function findOwnerTemplates(em: EntityManager, ownerUserId: string): Promise<OwnerTemplates | null> {
  const [r] = await run<{ description_label: string | null; description_body: string | null; checklists: unknown }>(
    em,
    `select description_label, description_body, checklists from owner_intake_templates where owner_user_id = ?`,
    [ownerUserId],
  );
  if (!r) return null;
  const raw = typeof r.checklists === 'string' ? JSON.parse(r.checklists) : r.checklists;
  return { descriptionLabel: r.description_label, descriptionBody: r.description_body, checklists: Array.isArray(raw) ? (raw as IntakeChecklist[]) : null };
}

export async function upsertOwnerTemplates(em: EntityManager, ownerUserId: string, t: OwnerTemplates, now: Date): Promise<void> {
  await run(
    em,
    `insert into owner_intake_templates (owner_user_id, description_label, description_body, checklists, updated_at) values (?, ?, ?, ?::jsonb, ?::timestamptz)
     on conflict (owner_user_id) do update set description_label = excluded.description_label, description_body = excluded.description_body,
       checklists = excluded.checklists, updated_at = excluded.updated_at`,
    [ownerUserId, t.descriptionLabel, t.descriptionBody, t.checklists === null ? null : JSON.stringify(t.checklists), now.toISOString()],
  );
}

export async function deleteOwnerTemplates(em: EntityManager, ownerUserId: string): Promise<boolean> {
  const rows = await run(em, `delete from owner_intake_templates where owner_user_id = ? returning owner_user_id`, [ownerUserId]);
  return rows.length > 0;
}
