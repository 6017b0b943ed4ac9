#!/usr/bin/env bash
# Both-ways upgrade check (docs/migrations.md): during a rolling upgrade the previous release runs
# against the new schema, and the new release starts on the schema the previous one left. This
# script runs both, on real PostgreSQL and Redis, against the release baseline that
# api/baseline/release.json records (the same one lint:compat compares the API with):
#
#   lint         the migrations added since the baseline against the rules (scripts/migration-lint.mjs)
#   direction 1  old code, new schema: a fresh database migrated by THIS tree; the baseline release
#                starts on it (its migrator meets migrations it does not know) and passes its smoke
#   mixed fleet  this tree starts on the same database while the baseline still runs: each
#                publishes, each dedups the other's event_id, each reads the other's delivery,
#                each replays the other's Idempotency-Key (a resolve)
#   direction 2  new code, old schema: a fresh database migrated and filled by the BASELINE, which
#                is then stopped; this tree starts on it (its migrations run forward over the
#                baseline's rows), reads a baseline delivery back, dedups a baseline event_id
#                and passes its smoke
#   post-deploy  the rollout over: this tree's `fluxdesk migrate --post-deploy` on that database
#                while it serves (deliveries, notifications and delivery_supplements partitioned
#                in place), then the same smoke again
#
# The smoke is the operator contract's (../shared/tools/contract-smoke.sh): `npm start` with
# DATABASE_URL/REDIS_URL/PORT/GRPC_PORT/DATA_DIR, tokens from the release's own `fluxdesk` CLI, a
# publish to /api/v1/events; plus the dedup (same delivery, fireCount + 1), the read back and an
# MCP tools/list + list_inbox. contract-smoke.sh creates its own database, so it cannot be pointed at
# a prepared one; this script does the same steps against the databases it prepares.
#
# Run from anywhere in the tree after `npm install` (needs git, psql, curl, python3, PostgreSQL on
# 127.0.0.1:5432 user postgres trust, Redis on 127.0.0.1:6379):
#   bash scripts/upgrade-check.sh
# Environment:
#   PGURL                  admin connection (default postgres://postgres@127.0.0.1:5432/postgres)
#   REDIS_URL_CHECK        Redis for the services (default redis://127.0.0.1:6379)
#   UPGRADE_CHECK_BASELINE a directory to keep the installed, built baseline in between runs
#                          (reused when it holds the same commit; default: a temporary one, removed)
#   UPGRADE_CHECK_KEEP=1   keep the databases, logs and temporary directory (printed) after the run
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

PGURL=${PGURL:-postgres://postgres@127.0.0.1:5432/postgres}
PGBASE=${PGURL%/*}
REDIS=${REDIS_URL_CHECK:-redis://127.0.0.1:6379}
work=$(mktemp -d /tmp/upgrade-check.XXXXXX)
tag="upgchk_$$_$RANDOM"
pids=()
dbs=()
current="setup"
t_all=$(date +%s)

say() { printf '%s\n' "$*" >&2; }
now_s() { date +%s; }
part_start=0
part() {
  current=$1
  part_start=$(now_s)
  printf '\n-- [%s] %s\n' "$(date -u +%H:%M:%S)" "$current" >&2
}
part_done() { say "   ${current}: ok in $(($(now_s) - part_start)) s"; }

cleanup() {
  local p t0
  t0=$(now_s)
  for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 -- "-$p" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$p" 2>/dev/null
  done
  if [ "${UPGRADE_CHECK_KEEP:-0}" = 1 ]; then
    say "kept (UPGRADE_CHECK_KEEP=1): $work, databases ${dbs[*]:-none}"
    return
  fi
  local d
  for d in "${dbs[@]}"; do psql "$PGURL" -qXc "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null 2>&1; done
  rm -rf "$work"
  say "upgrade check: cleaned up (processes, databases, $work) in $(($(now_s) - t0)) s; $(($(now_s) - t_all)) s in all"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# fail STEP MESSAGE [LOG]: names the part (direction) and the step, shows the end of a server log.
fail() {
  say ""
  say "UPGRADE CHECK FAILED: ${current}"
  say "  step: $1"
  say "  $2"
  if [ -n "${3:-}" ] && [ -f "$3" ]; then
    say "  last lines of $3:"
    tail -n 15 "$3" | cut -c1-400 | sed 's/^/    /' >&2
  fi
  exit 1
}
ok() { say "   ok   $*"; }

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# jv EXPR <<<JSON: evaluates a Python expression over the parsed JSON `d` read from stdin (an SSE
# body's data lines are taken as the JSON; stdin, as a tools/list answer outgrows an argument's
# 128 kB); prints nothing and fails when the text is not JSON or the expression fails.
jv() {
  python3 -c 'import sys, json
t = sys.stdin.read()
if t.lstrip().startswith(("event:", "data:")):
    t = "\n".join(l[5:] for l in t.splitlines() if l.startswith("data:"))
d = json.loads(t)
v = eval(sys.argv[1], {"d": d, "json": json})
print(json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else v)' "$1" 2>/dev/null
}

# --- the trees ---------------------------------------------------------------------------------
# A tree is a directory with node_modules and dist/ built as its `npm start` builds it.
npm_start_build() { # dir: `npm start`'s own build step, run once up front (timed on its own)
  (cd "$1" && PATH="$1/node_modules/.bin:$PATH" node scripts/build.mjs --if-stale --no-check)
}

# start NAME DIR DB: `npm start` of DIR against database DB in its own process group; waits for
# /api/v1/health 200. Sets base_NAME, log_NAME, pid_NAME. Free ports are picked just before; if
# another process took one meanwhile (EADDRINUSE), it starts again on others (3 tries).
start() {
  local name=$1 dir=$2 db=$3 p g pid code=000 log="$work/$1-$3.log" try t0 t
  t0=$(now_s)
  for try in 1 2 3; do
    p=$(freeport)
    g=$(freeport)
    (cd "$dir" && exec env -u METRICS_PORT -u REDIS_KEY_PREFIX -u OTEL_EXPORTER_OTLP_ENDPOINT -u OTEL_TRACES_EXPORTER \
      PORT="$p" GRPC_PORT="$g" DATA_DIR="$work/data-$name" DATABASE_URL="$PGBASE/$db" REDIS_URL="$REDIS" \
      setsid npm start) >"$log" 2>&1 &
    pid=$!
    pids+=("$pid")
    printf -v "pid_$name" '%s' "$pid"
    printf -v "log_$name" '%s' "$log"
    printf -v "base_$name" '%s' "http://127.0.0.1:$p"
    for t in $(seq 1 240); do
      code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$p/api/v1/health")
      [ "$code" = 200 ] && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    [ "$code" = 200 ] && break
    kill -0 "$pid" 2>/dev/null || ! grep -q EADDRINUSE "$log" || { say "   note $name: a port was taken meanwhile (EADDRINUSE), starting on others"; continue; }
    break
  done
  [ "$code" = 200 ] || fail "start $name ($dir) on database $db" "npm start did not answer /api/v1/health with 200 (last: $code; process $(kill -0 "$pid" 2>/dev/null && echo running || echo exited))" "$log"
  ok "$name started on $db in $(($(now_s) - t0)) s (http://127.0.0.1:$p)"
}

stop() { # NAME: TERM to its process group, KILL after 10 s
  local v="pid_$1" pid
  pid=${!v}
  kill -TERM -- "-$pid" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL -- "-$pid" 2>/dev/null
  ok "$1 stopped"
}

# cli DIR DB ARGS...: that tree's own `fluxdesk` CLI against database DB (JSON on stdout).
cli() {
  local dir=$1 db=$2
  shift 2
  (cd "$dir" && env -u REDIS_URL -u METRICS_PORT DATA_DIR="$work/data-cli" DATABASE_URL="$PGBASE/$db" npx --no-install fluxdesk "$@" 2>"$work/cli.err")
}

createdb() { # VAR SUFFIX: creates database <tag>_SUFFIX (dropped at exit) and sets VAR to its name
  local db="${tag}_$2"
  psql "$PGURL" -qXc "CREATE DATABASE $db" >/dev/null || fail "create database $db" "psql could not create it (is PostgreSQL on ${PGBASE}?)"
  dbs+=("$db")
  printf -v "$1" '%s' "$db"
}
sqlq() { psql "$PGBASE/$1" -qXAtc "$2"; }
migrations_in() { sqlq "$1" "select name from mikro_orm_migrations order by name"; }

# --- the smoke -----------------------------------------------------------------------------------
# Accounts from a tree's CLI: bootstrap (admin + agent token with scopes *) and a personal token.
# Sets tok_<key>, agent_<key>.
accounts() {
  local key=$1 dir=$2 db=$3 out t
  out=$(cli "$dir" "$db" bootstrap --email admin@upgrade.test --name Admin)
  t=$(jv 'd["agentToken"]' <<<"$out")
  [ -n "$t" ] || fail "fluxdesk bootstrap ($dir)" "no agentToken in: ${out:0:300} $(tail -2 "$work/cli.err")"
  printf -v "agent_$key" '%s' "$t"
  out=$(cli "$dir" "$db" token create --email admin@upgrade.test --label "upgrade-$key")
  t=$(jv 'd["token"]' <<<"$out")
  [ -n "$t" ] || fail "fluxdesk token create ($dir)" "no token in: ${out:0:300} $(tail -2 "$work/cli.err")"
  printf -v "tok_$key" '%s' "$t"
  ok "accounts from $(basename "$dir")'s CLI: bootstrap, token create"
}

# publish NAME TOKEN EVENT_ID TITLE EXPECT_STATUS EXPECT_FIRECOUNT [EXPECT_DELIVERY]: prints the deliveryId.
publish() {
  local name=$1 token=$2 eid=$3 title=$4 want=$5 fc=$6 want_id=${7:-} b="base_$1" l="log_$1" code body id got_fc
  code=$(curl -s -m 20 -o "$work/r.json" -w '%{http_code}' -X POST "${!b}/api/v1/events" \
    -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "{\"spec_version\":\"2\",\"event_id\":\"$eid\",\"event_type\":\"personal.upgrade.check.done\",\"severity\":\"info\",\"title\":\"$title\",\"occurred_at\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"}")
  body=$(cat "$work/r.json")
  id=$(jv 'd["deliveryId"]' <<<"$body")
  got_fc=$(jv 'd["fireCount"]' <<<"$body")
  [ "$code" = "$want" ] || fail "$name: publish $eid" "HTTP $code, expected $want: ${body:0:300}" "${!l}"
  [ "$got_fc" = "$fc" ] || fail "$name: publish $eid" "fireCount $got_fc, expected $fc: ${body:0:300}" "${!l}"
  if [ -n "$want_id" ]; then
    [ "$id" = "$want_id" ] || fail "$name: dedup of $eid" "deliveryId $id, expected the first publish's $want_id" "${!l}"
    [ "$(jv 'd["deduped"]' <<<"$body")" = true ] || fail "$name: dedup of $eid" "deduped is not true: ${body:0:300}" "${!l}"
    ok "$name: $eid again -> $code, same delivery, deduped, fireCount $fc"
  else
    ok "$name: publish $eid -> $code, fireCount $fc"
  fi
  printf '%s' "$id"
}

# readback NAME TOKEN DELIVERY_ID EXPECT_FIRECOUNT
readback() {
  local name=$1 token=$2 id=$3 fc=$4 b="base_$1" l="log_$1" code body
  code=$(curl -s -m 20 -o "$work/r.json" -w '%{http_code}' -H "Authorization: Bearer $token" "${!b}/api/v1/events/$id")
  body=$(cat "$work/r.json")
  [ "$code" = 200 ] || fail "$name: read back delivery $id" "HTTP $code: ${body:0:300}" "${!l}"
  [ "$(jv 'd["deliveryId"]' <<<"$body")" = "$id" ] && [ "$(jv 'd["fireCount"]' <<<"$body")" = "$fc" ] ||
    fail "$name: read back delivery $id" "expected deliveryId $id with fireCount $fc: ${body:0:300}" "${!l}"
  ok "$name: GET /api/v1/events/$id -> 200, fireCount $fc"
}

# resolve NAME TOKEN DELIVERY_ID IDEMPOTENCY_KEY REPLAYED(true|false): resolves with that key; the
# second release sending the same key must replay the first one's answer (Redis record and the
# request fingerprint both compatible), not run it again or call it a different request (409).
resolve() {
  local name=$1 token=$2 id=$3 key=$4 replayed=$5 b="base_$1" l="log_$1" code body got
  code=$(curl -s -m 20 -D "$work/h.txt" -o "$work/r.json" -w '%{http_code}' -X POST "${!b}/api/v1/events/$id/resolve" \
    -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -H "Idempotency-Key: $key" -d '{"resolution_note":"upgrade check"}')
  body=$(cat "$work/r.json")
  [ "$code" = 200 ] || fail "$name: resolve $id with Idempotency-Key $key" "HTTP $code: ${body:0:300}" "${!l}"
  [ "$(jv 'd["deliveryId"]' <<<"$body")" = "$id" ] || fail "$name: resolve $id with Idempotency-Key $key" "another delivery: ${body:0:300}" "${!l}"
  got=$(grep -i '^idempotent-replayed:' "$work/h.txt" | tr -d '\r' | awk '{print $2}')
  [ "${got:-false}" = "$replayed" ] || fail "$name: resolve $id with Idempotency-Key $key" "Idempotent-Replayed ${got:-absent}, expected $replayed" "${!l}"
  ok "$name: resolve $id with Idempotency-Key $key -> 200, replayed $replayed"
}

# mcp NAME AGENT_TOKEN EXPECT_TOTAL: tools/list names list_inbox; list_inbox counts EXPECT_TOTAL rows.
mcp() {
  local name=$1 token=$2 total=$3 b="base_$1" l="log_$1" body n
  body=$(curl -s -m 20 -X POST "${!b}/mcp" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
  [ "$(jv '"list_inbox" in [t["name"] for t in d["result"]["tools"]]' <<<"$body")" = true ] ||
    fail "$name: MCP tools/list" "no list_inbox tool; tools: $(jv '" ".join(t["name"] for t in d["result"]["tools"])' <<<"$body" || echo "${body:0:300}")" "${!l}"
  body=$(curl -s -m 20 -X POST "${!b}/mcp" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_inbox","arguments":{"limit":50}}}')
  n=$(jv 'json.loads(d["result"]["content"][0]["text"])["totalCount"]' <<<"$body")
  [ "$n" = "$total" ] || fail "$name: MCP list_inbox" "totalCount ${n:-?}, expected $total: ${body:0:300}" "${!l}"
  [ "$(jv 'len(json.loads(d["result"]["content"][0]["text"])["items"])' <<<"$body")" = "$total" ] ||
    fail "$name: MCP list_inbox" "expected $total items: ${body:0:300}" "${!l}"
  ok "$name: MCP tools/list has list_inbox; list_inbox totalCount $total, $total items"
}

# === setup =========================================================================================
part "setup: the release baseline (api/baseline/release.json)"
read -r base_commit base_version < <(python3 -c 'import json; r=json.load(open("api/baseline/release.json")); print(r["commit"], r["version"])') ||
  fail "read api/baseline/release.json" "no commit/version in it"
git cat-file -e "${base_commit}^{commit}" 2>/dev/null ||
  fail "find the baseline commit" "commit $base_commit (release $base_version, api/baseline/release.json) is not in this clone: a shallow clone? run \`git fetch --unshallow\` (or fetch that commit) and try again"
say "   baseline: release $base_version, commit ${base_commit:0:12}; this tree: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src package.json package-lock.json || echo ' + uncommitted changes')"
part_done

# === the static rules ==============================================================================
part "migration lint: the migrations added since the baseline against docs/migrations.md's rules"
node scripts/migration-lint.mjs >"$work/lint.txt" 2>&1
lint_rc=$?
sed 's/^/   /' "$work/lint.txt" >&2
[ "$lint_rc" = 0 ] || fail "node scripts/migration-lint.mjs" "a migration can break the previous release (ERROR lines above), or the lint could not run"
grep -q '^migration lint: ok' "$work/lint.txt" || fail "node scripts/migration-lint.mjs" "the lint printed no verdict"
part_done

part "setup: the baseline release installed and built as its npm start builds it"
base_dir=${UPGRADE_CHECK_BASELINE:-$work/baseline}
if [ -f "$base_dir/.upgrade-check-commit" ] && [ "$(cat "$base_dir/.upgrade-check-commit")" = "$base_commit" ] && [ -d "$base_dir/node_modules" ]; then
  ok "baseline tree reused from $base_dir"
else
  t0=$(now_s)
  # Only a directory this script made (its marker) or an empty one is ever emptied.
  if [ -d "$base_dir" ] && [ -n "$(ls -A "$base_dir")" ] && [ ! -f "$base_dir/.upgrade-check-commit" ]; then
    fail "prepare $base_dir" "it is not empty and was not made by this script (no .upgrade-check-commit): refusing to empty it; name another UPGRADE_CHECK_BASELINE"
  fi
  rm -rf "$base_dir" && mkdir -p "$base_dir" || fail "make $base_dir" "cannot create it"
  echo incomplete >"$base_dir/.upgrade-check-commit"
  git archive "$base_commit" | tar -x -C "$base_dir" || fail "git archive $base_commit" "could not extract the baseline tree"
  ok "baseline tree extracted to $base_dir in $(($(now_s) - t0)) s"
  t0=$(now_s)
  # One retry: a registry hiccup should not fail CI (the second run finds most packages in the cache).
  (cd "$base_dir" && { npm install --no-audit --no-fund --prefer-offline || npm install --no-audit --no-fund --prefer-offline; }) >"$work/baseline-install.log" 2>&1 ||
    fail "npm install in the baseline tree" "npm install failed twice" "$work/baseline-install.log"
  ok "baseline npm install (its own package-lock.json) in $(($(now_s) - t0)) s"
fi
t0=$(now_s)
npm_start_build "$base_dir" >"$work/baseline-build.log" 2>&1 || fail "build the baseline (npm start's build step)" "scripts/build.mjs failed" "$work/baseline-build.log"
echo "$base_commit" >"$base_dir/.upgrade-check-commit"
t1=$(now_s)
npm_start_build "$root" >"$work/tree-build.log" 2>&1 || fail "build this tree (npm start's build step)" "scripts/build.mjs failed" "$work/tree-build.log"
ok "builds as npm start makes them: baseline $((t1 - t0)) s, this tree $(($(now_s) - t1)) s"
base_known=$(cd "$base_dir/src/infra/db/migrations" && ls Migration*.ts | sed 's/\.ts$//' | sort)
tree_known=$(cd "$root/src/infra/db/migrations" && ls Migration*.ts | sed 's/\.ts$//' | sort)
newer=$(comm -13 <(echo "$base_known") <(echo "$tree_known"))
# Post-deploy migrations (src/infra/db/migrations/index.ts POST_DEPLOY_MIGRATIONS) run only on
# `fluxdesk migrate --post-deploy`, once no node of the previous release is left.
post_deploy=$(grep -o "POST_DEPLOY_MIGRATIONS[^=]*= new Set(\[[^]]*\])" "$root/src/infra/db/migrations/index.ts" | grep -o "Migration[0-9A-Za-z]*" | sort)
tree_pre=$(comm -23 <(echo "$tree_known") <(echo "$post_deploy"))
say "   migrations: baseline $(echo "$base_known" | wc -l), this tree $(echo "$tree_known" | wc -l), new since the baseline $(echo -n "$newer" | grep -c .)"
[ -z "$(comm -23 <(echo "$base_known") <(echo "$tree_known"))" ] ||
  fail "compare migration lists" "this tree lost migrations the baseline has (a migration file removed or renamed breaks every database the baseline migrated): $(comm -23 <(echo "$base_known") <(echo "$tree_known") | tr '\n' ' ')"
part_done

# === direction 1: old code, new schema =============================================================
part "direction 1 (old code, new schema): this tree migrates a fresh database, the baseline runs on it"
createdb db1 d1
out=$(cli "$root" "$db1" migrate) || fail "migrate with this tree (fluxdesk migrate)" "${out:0:300} $(tail -3 "$work/cli.err")"
applied=$(migrations_in "$db1")
[ "$applied" = "$tree_pre" ] || fail "migrate with this tree (fluxdesk migrate)" "the migrations table does not list exactly this tree's migrations but its post-deploy ones"
unknown=$(comm -13 <(echo "$base_known") <(echo "$applied"))
ok "this tree migrated $db1: $(echo "$applied" | wc -l) migrations, $(echo -n "$unknown" | grep -c .) of them unknown to the baseline"
start base "$base_dir" "$db1"
if [ -n "$unknown" ]; then
  ok "the baseline started although mikro_orm_migrations holds migrations it does not know ($(echo "$unknown" | tr '\n' ' '))"
fi
[ "$(migrations_in "$db1")" = "$tree_pre" ] || fail "baseline start" "the baseline changed the migrations table"
accounts b "$base_dir" "$db1"
d1=$(publish base "$tok_b" up-1 'old code new schema' 202 1) || exit 1
publish base "$tok_b" up-1 'old code new schema' 200 2 "$d1" >/dev/null || exit 1
readback base "$tok_b" "$d1" 2
mcp base "$agent_b" 1
part_done

# === mixed fleet: both releases on one database ====================================================
part "mixed fleet: the baseline and this tree on one database at once (after this tree migrated it)"
start tree "$root" "$db1"
d2=$(publish tree "$tok_b" up-2 'new node first' 202 1) || exit 1
publish base "$tok_b" up-2 'new node first' 200 2 "$d2" >/dev/null || exit 1
d3=$(publish base "$tok_b" up-3 'old node first' 202 1) || exit 1
publish tree "$tok_b" up-3 'old node first' 200 2 "$d3" >/dev/null || exit 1
publish tree "$tok_b" up-1 'old code new schema' 200 3 "$d1" >/dev/null || exit 1
readback tree "$tok_b" "$d1" 3
readback base "$tok_b" "$d2" 2
readback tree "$tok_b" "$d3" 2
resolve base "$tok_b" "$d3" "upg-$tag-1" false
resolve tree "$tok_b" "$d3" "upg-$tag-1" true
resolve tree "$tok_b" "$d2" "upg-$tag-2" false
resolve base "$tok_b" "$d2" "upg-$tag-2" true
mcp base "$agent_b" 3
mcp tree "$agent_b" 3
stop tree
stop base
part_done

# === direction 2: new code, old schema =============================================================
part "direction 2 (new code, old schema left by the baseline): the baseline migrates and fills a fresh database, this tree takes over"
createdb db2 d2
start base "$base_dir" "$db2"
[ "$(migrations_in "$db2")" = "$base_known" ] || fail "baseline start" "the migrations table does not list exactly the baseline's migrations"
accounts o "$base_dir" "$db2"
e1=$(publish base "$tok_o" old-1 'published by the baseline' 202 1) || exit 1
publish base "$tok_o" old-1 'published by the baseline' 200 2 "$e1" >/dev/null || exit 1
e2=$(publish base "$tok_o" old-2 'second from the baseline' 202 1) || exit 1
mcp base "$agent_o" 2
stop base
start tree "$root" "$db2"
[ "$(migrations_in "$db2")" = "$tree_pre" ] || fail "this tree's start" "its migrations did not all run forward: $(comm -13 <(migrations_in "$db2") <(echo "$tree_pre") | tr '\n' ' ')" "$log_tree"
ok "this tree applied its $(comm -13 <(echo "$base_known") <(echo "$tree_pre") | grep -c .) newer migrations over the baseline's rows (not the post-deploy ones: $(echo "$post_deploy" | tr '\n' ' '))"
readback tree "$tok_o" "$e1" 2
readback tree "$tok_o" "$e2" 1
publish tree "$tok_o" old-1 'published by the baseline' 200 3 "$e1" >/dev/null || exit 1
e3=$(publish tree "$tok_o" new-1 'published by this tree' 202 1) || exit 1
publish tree "$tok_o" new-1 'published by this tree' 200 2 "$e3" >/dev/null || exit 1
readback tree "$tok_o" "$e3" 2
mcp tree "$agent_o" 3
# this tree's own CLI on the migrated database: tokens it makes work too
accounts n "$root" "$db2"
e4=$(publish tree "$tok_n" new-2 'token made by this tree' 202 1) || exit 1
readback tree "$tok_n" "$e4" 1
part_done

# === post-deploy: the rollout is over ==============================================================
part "post-deploy (no baseline node left): this tree's \`fluxdesk migrate --post-deploy\` while it serves, then its smoke"
if [ -n "$post_deploy" ]; then
  out=$(cli "$root" "$db2" migrate --post-deploy) || fail "fluxdesk migrate --post-deploy" "${out:0:300} $(tail -3 "$work/cli.err")"
  [ "$(migrations_in "$db2")" = "$tree_known" ] || fail "fluxdesk migrate --post-deploy" "the migrations table does not list every migration of this tree"
  ok "post-deploy migrations applied with the tree serving: $(echo "$post_deploy" | tr '\n' ' ')"
  for table in deliveries notifications delivery_supplements; do
    [ "$(sqlq "$db2" "select relkind from pg_class where relname = '$table'")" = "p" ] || fail "post-deploy" "$table is not partitioned"
    ok "$table is partitioned: $(sqlq "$db2" "select string_agg(c.relname, ' ' order by c.relname) from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = '$table'::regclass")"
  done
  readback tree "$tok_o" "$e1" 3
  readback tree "$tok_n" "$e4" 1
  publish tree "$tok_o" old-1 'published by the baseline' 200 4 "$e1" >/dev/null || exit 1
  publish tree "$tok_n" new-2 'token made by this tree' 200 2 "$e4" >/dev/null || exit 1
  e5=$(publish tree "$tok_n" new-3 'after the post-deploy migration' 202 1) || exit 1
  publish tree "$tok_n" new-3 'after the post-deploy migration' 200 2 "$e5" >/dev/null || exit 1
  readback tree "$tok_n" "$e5" 2
  # The one admin account: old-1, old-2, new-1, new-2 and new-3.
  mcp tree "$agent_o" 5
else
  ok "this tree has no post-deploy migration"
fi
stop tree
part_done

say ""
echo "upgrade check: ok (release $base_version <-> $(git rev-parse --short HEAD)) in $(($(now_s) - t_all)) s"
