import { Migration } from '@mikro-orm/migrations';

// The steps of a delivery's trace (GET /api/v1/events/{deliveryId}/trace, docs/contract.md) that no
// other row keeps: each nudge attempt's outcome (sent, failed with its next retry, dead, or nothing
// to send it to) and the quiet hours holds the summary statement takes out of nudge_held. Written
// by the nudge worker and the quiet hours summary only, never by the publish statement (the rest of
// a trace is read from the delivery, its inbox row, moderation entry, supplements and audit rows).
// Backward compatible with the previous release: only an addition it neither reads nor writes. No
// foreign key (like nudge_outbox and nudge_held): the worker's insert takes no lock on deliveries.
const STATEMENTS = [
  `create table "delivery_trace" ("id" bigint generated always as identity, "delivery_id" uuid not null, "at" timestamptz not null,
     "step" varchar(24) not null, "channel" varchar(8) null, "detail" jsonb null, primary key ("id"))`,
  `create index "delivery_trace_delivery_id_at_index" on "delivery_trace" ("delivery_id", "at", "id")`,
];

export class Migration20261130200000DeliveryTrace extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
