// Inbox search on the embedded database (PGlite): the same statements as on PostgreSQL, each way a
// search is answered: counted by walking the view (capped, or exact when the walk reads the whole
// view), through the index for its rarest part, and `from:` looked up first.
import { createClient } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxService } from '../../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { withToken } from '../../helpers/agents.js';
import { bearer, closeSessions, transportFor } from '../../helpers/connect.js';
import { event, newPersonalToken, publish, startHarness, type Harness } from '../../helpers/harness.js';
import { indexSearchBacklogTask } from '../../../src/domain/inbox/index-search-backlog.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: 'embedded' });
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

describe('inbox search on the embedded database', () => {
  it('a broad search is capped, a walked one exact, a rare one found through the index, from: by its tokens', async () => {
    const pt = await newPersonalToken(h);
    const ag = await withToken(h, pt.user, ['read:inbox']);
    // 700 rows, row g g seconds old; one in 8 says "every eighth" (87 in all, 62 of the newest 500).
    await h.svc.deps.orm.em
      .fork()
      .getConnection()
      .execute(
        `insert into notifications (id, user_id, type, title, summary, created_at, updated_at)
       select gen_random_uuid(), ?, 'system', 'Embedded alert ' || g, case when g % 8 = 0 then 'every eighth' else 'plain' end,
         now() - g * interval '1 second', now()
       from generate_series(1, 700) g`,
        [pt.user.userId],
      );
    await indexSearchBacklogTask.run(h.svc.deps);
    for (const title of ['Sent through the token one', 'Sent through the token two']) {
      h.clock.advance(1_000);
      expect((await publish(h, pt.token, event(h, { title }))).status).toBe(202);
    }
    const c = createClient(InboxService, transportFor(h, 'connect', [bearer(ag.token)]));

    const broad = await c.listInbox({ query: 'embedded', limit: 3 });
    expect(broad).toMatchObject({ totalCount: 100, totalCountCapped: true });
    expect(broad.items.map((i) => i.title)).toEqual(['Embedded alert 1', 'Embedded alert 2', 'Embedded alert 3']);
    const walked = await c.listInbox({ query: 'every eighth', limit: 2 });
    expect(walked).toMatchObject({ totalCount: 87, totalCountCapped: false });
    expect(walked.items.map((i) => i.title)).toEqual(['Embedded alert 8', 'Embedded alert 16']);
    const rare = await c.listInbox({ view: 'all', query: 'embedded alert 650' });
    expect(rare).toMatchObject({ totalCount: 1, totalCountCapped: false });
    expect(rare.items.map((i) => i.title)).toEqual(['Embedded alert 650']);
    const from = await c.listInbox({ query: 'from:test' });
    expect(from.items.map((i) => i.title)).toEqual(['Sent through the token two', 'Sent through the token one']);
    expect((await c.listInbox({ query: 'from:nobody-here' })).totalCount).toBe(0);
  });
});
