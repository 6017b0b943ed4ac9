// The EventStore (domain/events/event-store.ts) on the service's database: personal-token
// publishes go through the group commit (group-commit.ts: concurrent publishes share one
// statement), a moderation token's held delivery is a statement of its own, and a bulk fan-out is
// one statement in its caller's transaction. The statements are the events repository's; the hot
// ones run as prepared statements (infra/db/prepared-statements.ts).
import type { Connection, EntityManager } from '@mikro-orm/core';
import type { PrincipalVersions } from '../../domain/principal.js';
import type { Arrival, DeliveryRow, EventStore, NewDelivery } from '../../domain/events/event-store.js';
import { upsertDeliveries, writeDeliveries } from '../../domain/events/events.repository.js';
import { StalePrincipalError } from '../../domain/tokens/token-directory.js';
import { GroupCommit } from './group-commit.js';

export class DatabaseEventStore implements EventStore {
  readonly groupCommit: GroupCommit;

  /** `conn`: the service's connection pool (statements run outside any caller's transaction). */
  constructor(private readonly conn: Connection) {
    this.groupCommit = new GroupCommit(conn);
  }

  publish(delivery: NewDelivery, arrival: Arrival & { hold: boolean; verify: PrincipalVersions | undefined }): Promise<DeliveryRow> {
    // `arrival` is the row's context as it stands (now, source, request id, verify): no copy per publish.
    return arrival.hold ? this.writeHeld(delivery, arrival) : this.groupCommit.add(delivery, arrival, arrival.day);
  }

  publishMany(em: EntityManager, deliveries: NewDelivery[], arrival: Arrival): Promise<DeliveryRow[]> {
    return upsertDeliveries(em, deliveries, arrival);
  }

  /** Mode 2 (moderation token): the admin's hold-for-forwarding queue instead of an inbox row. */
  private async writeHeld(delivery: NewDelivery, arrival: Arrival & { hold: boolean; verify: PrincipalVersions | undefined }): Promise<DeliveryRow> {
    const [row] = await writeDeliveries(this.conn, undefined, [{ item: delivery, row: arrival }], arrival);
    if (!row) throw new StalePrincipalError();
    return row;
  }
}
