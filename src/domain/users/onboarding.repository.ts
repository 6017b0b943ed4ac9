// Rows an invitation creates next to the user: profile, onboarding checklist, notification
// preferences (migration Migration20261122020000Onboarding). Written in the caller's transaction.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { ChecklistItem, EmploymentType, Location, NotificationPreferences, UiLanguage } from './onboarding.rules.js';

export interface OnboardingRows {
  userId: string;
  invitedByUserId: string;
  profile: { employmentType: EmploymentType; location: Location; uiLanguage: UiLanguage };
  checklist: ChecklistItem[];
  preferences: NotificationPreferences;
  now: Date;
}

export async function insertOnboardingRows(em: EntityManager, r: OnboardingRows): Promise<{ checklistId: string }> {
  const conn = em.getConnection();
  const tx = em.getTransactionContext();
  const now = r.now.toISOString();
  const checklistId = randomUUID();
  await conn.execute(
    `insert into user_profiles (user_id, employment_type, location, ui_language, invited_by_user_id, invited_at, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz)`,
    [r.userId, r.profile.employmentType, r.profile.location, r.profile.uiLanguage, r.invitedByUserId, now, now, now],
    'run',
    tx,
  );
  await conn.execute(
    `insert into onboarding_checklists (id, user_id, items, created_by_user_id, created_at, completed_at) values (?, ?, ?::jsonb, ?, ?::timestamptz, null)`,
    [checklistId, r.userId, JSON.stringify(r.checklist), r.invitedByUserId, now],
    'run',
    tx,
  );
  const p = r.preferences;
  await conn.execute(
    `insert into notification_preferences (user_id, inbox, push, chat, email_digest, locale, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz)`,
    [r.userId, p.inbox, p.push, p.chat, p.emailDigest, p.locale, now, now],
    'run',
    tx,
  );
  return { checklistId };
}
