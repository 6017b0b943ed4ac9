import { Migration } from '@mikro-orm/migrations';

// Web app sign-in (docs/web-sign-in.md). Every secret is stored as a SHA-256 hash only:
// the session cookie value, the session's CSRF token, a one-time login link, an OIDC login's state.
//  - web_sessions: one row per signed-in browser. Idle timeout 12 h (last_seen_at, slid at most
//    once a minute), absolute lifetime 7 days (expires_at); revoked_at set by sign-out.
//  - login_links: `fluxdesk login-link --email E`, valid 10 minutes, used once (used_at).
//  - oidc_logins: the server-side half of an OIDC authorization request (PKCE verifier, nonce,
//    where to go next), keyed by the hash of its `state`; 10 minutes, used once.
const STATEMENTS = [
  `create table "web_sessions" ("id" uuid not null, "user_id" uuid not null references "users" ("id"), "token_hash" varchar(64) not null, "csrf_hash" varchar(64) not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "user_agent" varchar(300) null, "signed_in_by" varchar(20) not null, primary key ("id"))`,
  `alter table "web_sessions" add constraint "web_sessions_token_hash_unique" unique ("token_hash")`,
  // Sign-out everywhere: every live session of one user.
  `create index "web_sessions_user_id_index" on "web_sessions" ("user_id") where "revoked_at" is null`,
  `create index "web_sessions_expires_at_index" on "web_sessions" ("expires_at")`,
  `create table "login_links" ("id" uuid not null, "token_hash" varchar(64) not null, "user_id" uuid not null references "users" ("id"), "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("id"))`,
  `alter table "login_links" add constraint "login_links_token_hash_unique" unique ("token_hash")`,
  `create index "login_links_user_id_index" on "login_links" ("user_id")`,
  `create index "login_links_expires_at_index" on "login_links" ("expires_at")`,
  `create table "oidc_logins" ("id" uuid not null, "state_hash" varchar(64) not null, "code_verifier" varchar(128) not null, "nonce" varchar(128) not null, "next_path" varchar(2000) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("id"))`,
  `alter table "oidc_logins" add constraint "oidc_logins_state_hash_unique" unique ("state_hash")`,
  `create index "oidc_logins_expires_at_index" on "oidc_logins" ("expires_at")`,
];

export class Migration20261125000000WebSessions extends Migration {
  override async up(): Promise<void> {
    for (const s of STATEMENTS) this.addSql(s);
  }
}
