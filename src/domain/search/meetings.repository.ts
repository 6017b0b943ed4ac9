// Meetings (Migration20261122110000Search): the minimum `search` needs, written by the operator
// operation `meetings.create` (create-meeting.ts).
import type { EntityManager } from '@mikro-orm/core';

/** A non-archived project by slug (meetings are filed under one). */
export async function findLiveProjectBySlug(em: EntityManager, slug: string): Promise<{ id: string; slug: string } | undefined> {
  const rows = (await em
    .getConnection()
    .execute(`select id, slug from projects where slug = ? and archived_at is null`, [slug], 'all', em.getTransactionContext())) as {
    id: string;
    slug: string;
  }[];
  return rows[0];
}

export interface NewMeeting {
  id: string;
  projectId: string;
  title: string;
  startsAt: Date;
  endsAt: Date | null;
  createdByUserId: string;
  createdAt: Date;
}

export async function insertMeeting(em: EntityManager, m: NewMeeting): Promise<void> {
  await em
    .getConnection()
    .execute(
      `insert into meetings (id, project_id, title, starts_at, ends_at, created_by_user_id, created_at) values (?, ?, ?, ?, ?, ?, ?)`,
      [m.id, m.projectId, m.title, m.startsAt, m.endsAt, m.createdByUserId, m.createdAt],
      'run',
      em.getTransactionContext(),
    );
}
