import { Migration } from '@mikro-orm/migrations';

// When a delivery's external status took its present value (SPEC "Delivery external status": the
// row shows a status bar and its time): set with the status by the publish statements when a new
// arrival brings a status the delivery did not have, and by a resolve that changes it. A nullable
// column without a default: adding it rewrites nothing, whatever the table's size. Rows written
// before it keep NULL; the inbox view falls back for them to what it showed until now (resolved_at
// for `resolved`, else the last arrival).
export class Migration20261128000000ExternalStatusAt extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "deliveries" add column "external_status_at" timestamptz null`);
  }
}
