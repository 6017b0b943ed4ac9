import { Migration } from '@mikro-orm/migrations';

// A user's identity at the company's OpenID Connect provider (docs/web-sign-in.md "Who signs in"):
// the issuer and the provider's `sub`, bound at the first SSO sign-in and matched on every later
// one, so an email address changed at the provider never moves a person to another account.
// One identity per user and issuer (a second `sub` for the same account is a conflict, refused).
// A new table: the release before this one never reads it, so both run on this schema.
export class Migration20261128100000OidcIdentities extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "oidc_identities" ("issuer" varchar(500) not null, "subject" varchar(255) not null, "user_id" uuid not null references "users" ("id"), "email_at_binding" varchar(320) not null, "created_at" timestamptz not null, "last_sign_in_at" timestamptz not null, primary key ("issuer", "subject"))`,
    );
    this.addSql(`alter table "oidc_identities" add constraint "oidc_identities_user_issuer_unique" unique ("user_id", "issuer")`);
  }
}
