import { Migration } from '@mikro-orm/migrations';

// audit_log is written by every accepted event (received / deduped) and by every other write;
// its only reader is the circuit breaker, by (token_id, created_at). The (actor_user_id,
// created_at) and (action, created_at) indexes had no query: each cost every audit row an index
// descent and insert (bench:statement: about 8 us of PostgreSQL CPU per repeat). An audit reader
// adds the index its own query needs.
const STATEMENTS = [`drop index if exists "audit_log_actor_user_id_created_at_index"`, `drop index if exists "audit_log_action_created_at_index"`];

export class Migration20261124000000AuditIndexes extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
