// last_used_at of inbound and agent tokens (TokenDirectory.recordUse), for the 12-month inactivity
// rule and the token lists: refreshed at most hourly (TOUCH_INTERVAL_MS) without making the request
// wait; the refreshes due in one turn are one UPDATE per table, ids sorted so concurrent writers
// lock rows in one order. A failed or lost refresh is not retried (the token's next call finds it
// due again); the UPDATE only moves last_used_at forward past the interval, so it writes once.
import type { Connection } from '@mikro-orm/core';
import { pgArray } from '../../domain/sql-hints.js';
import type { TokenTable } from '../../domain/tokens/token-directory.js';
import { TOUCH_INTERVAL_MS } from '../../domain/tokens/token-lifecycle.rules.js';

const SQL: Record<TokenTable, string> = {
  inbound_tokens: updateSql('inbound_tokens'),
  agent_tokens: updateSql('agent_tokens'),
};

function updateSql(table: TokenTable): string {
  return `update ${table} t set last_used_at = v.at
     from unnest(?::uuid[], ?::timestamptz[]) as v (id, at)
    where t.id = v.id and (t.last_used_at is null or t.last_used_at < v.at - make_interval(secs => ${TOUCH_INTERVAL_MS / 1000}))`;
}

export class LastUseRecorder {
  private readonly due: Record<TokenTable, Map<string, string>> = { inbound_tokens: new Map(), agent_tokens: new Map() };
  /** Ids queued or being written: a second call for them schedules nothing. */
  private readonly pending = new Set<string>();
  private scheduled = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly conn: Connection) {}

  touch(table: TokenTable, id: string, now: Date): void {
    if (this.pending.has(id)) return;
    this.pending.add(id);
    this.due[table].set(id, now.toISOString());
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.writing = Promise.all([this.flush('inbound_tokens'), this.flush('agent_tokens')]).then(() => undefined);
      });
    }
  }

  /** Resolves when every refresh scheduled so far has been written (or has failed). */
  async settled(): Promise<void> {
    while (this.scheduled || this.pending.size > 0) {
      await new Promise<void>((r) => setImmediate(r));
      await this.writing;
    }
  }

  private async flush(table: TokenTable): Promise<void> {
    const due = this.due[table];
    if (due.size === 0) return;
    this.due[table] = new Map();
    const ids = [...due.keys()].sort();
    try {
      await this.conn.execute(SQL[table], [pgArray(ids), pgArray(ids.map((id) => due.get(id)!))], 'run');
    } catch {
      // Not retried: the token's next call finds the refresh due again (see the top of the file).
    } finally {
      for (const id of ids) this.pending.delete(id);
    }
  }
}
