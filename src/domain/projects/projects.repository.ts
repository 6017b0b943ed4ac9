import type { EntityManager } from '@mikro-orm/core';

export async function findProjectForMember(
  em: EntityManager,
  slug: string,
  userId: string,
): Promise<{ id: string; isMember: boolean } | undefined> {
  const rows = (await em.getConnection().execute(
    `select p.id, (m.user_id is not null or p.owner_user_id = ?) as is_member
       from projects p left join project_members m on m.project_id = p.id and m.user_id = ?
      where p.slug = ? and p.archived_at is null`,
    [userId, userId, slug],
    'all',
    em.getTransactionContext(),
  )) as { id: string; is_member: boolean }[];
  const r = rows[0];
  return r ? { id: r.id, isMember: r.is_member } : undefined;
}
