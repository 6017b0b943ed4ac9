// The daily_updates table (migration Migration20261122050000Tasks). One row per (user, day).
import type { EntityManager } from '@mikro-orm/core';
import { run } from '../sql.js';
import { pgArray } from '../sql-hints.js';

export interface DailyUpdateRow {
  userId: string;
  day: string;
  availabilityStatus: string;
  mainTaskIds: string[];
  contactWindow: string | null;
  blockers: string | null;
  note: string | null;
  now: Date;
}

/** Inserts or overwrites the day's entry; true when it replaced an existing one. */
export async function upsertDailyUpdate(em: EntityManager, r: DailyUpdateRow): Promise<boolean> {
  const now = r.now.toISOString();
  const [row] = await run<{ inserted: boolean }>(
    em,
    `insert into daily_updates (user_id, day, availability_status, main_task_ids, contact_window, blockers, note, created_at, updated_at)
     values (?, ?::date, ?, ?::uuid[], ?, ?, ?, ?::timestamptz, ?::timestamptz)
     on conflict (user_id, day) do update set availability_status = excluded.availability_status, main_task_ids = excluded.main_task_ids,
       contact_window = excluded.contact_window, blockers = excluded.blockers, note = excluded.note, updated_at = excluded.updated_at
     returning (xmax = 0) as inserted`,
    [r.userId, r.day, r.availabilityStatus, pgArray(r.mainTaskIds), r.contactWindow, r.blockers, r.note, now, now],
  );
  return !row!.inserted;
}
