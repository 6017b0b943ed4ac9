// The VAPID key pair of Web Push (RFC 8292): generated on first start and stored in the database,
// so every process serving the same database signs with the same key (browsers subscribed with
// its public half). Two processes starting at once both try to insert; the first row wins.
import type { MikroORM } from '@mikro-orm/core';
import webpush from 'web-push';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export const VAPID_ROW = 'vapid';

export async function loadOrCreateVapidKeys(orm: MikroORM, now: Date): Promise<VapidKeys> {
  const conn = orm.em.fork().getConnection();
  const read = async () =>
    (
      (await conn.execute(`select public_key, private_key from service_keys where name = ?`, [VAPID_ROW])) as Array<{ public_key: string; private_key: string }>
    )[0];
  let row = await read();
  if (!row) {
    const k = webpush.generateVAPIDKeys();
    await conn.execute(`insert into service_keys (name, public_key, private_key, created_at) values (?, ?, ?, ?) on conflict (name) do nothing`, [
      VAPID_ROW,
      k.publicKey,
      k.privateKey,
      now.toISOString(),
    ]);
    row = await read();
  }
  return { publicKey: row!.public_key, privateKey: row!.private_key };
}
