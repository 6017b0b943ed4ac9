// Moderation queue and circuit breaker on embedded PostgreSQL (PGlite): the same migration and
// the same publish statement as on PostgreSQL.
import { createClient } from '@connectrpc/connect';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HeldEventStatus, ModerationService } from '../../../gen/fluxdesk/moderation/v1/moderation_pb.js';
import { bearer, closeSessions, transportFor } from '../../helpers/connect.js';
import { event, newPersonalToken, newUser, operator, publish, publishLegacy, startHarness, type Harness } from '../../helpers/harness.js';
import { sql } from '../../helpers/tools.js';
import { newAgent } from '../mcp/rpc.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: 'embedded' });
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

it('held, listed, forwarded; a token trips its breaker', async () => {
  const admin = await newUser(h, 'admin');
  const target = await newUser(h);
  const m = await operator<{ tokenId: string; token: string }>(h, 'moderation.create_token', { owner: admin.email, label: 'embedded desk' });
  const ev = event(h, { recipient: { type: 'email', value: target.email } });
  const r = await publishLegacy(h, m.token, ev);
  expect(r.status, r.text).toBe(202);
  expect(await sql(h, 'select id from notifications where delivery_id = ?', [r.body.deliveryId])).toEqual([]);
  const svc = createClient(ModerationService, transportFor(h, 'connect', [bearer((await newAgent(h, undefined, admin)).token)]));
  const [entry] = (await svc.listHeldEvents({})).items;
  expect(entry).toMatchObject({ eventId: ev.event_id, status: HeldEventStatus.PENDING });
  const fwd = await svc.forwardHeldEvent({ entryId: entry!.entryId });
  expect(await sql(h, 'select actor_user_id, tags from notifications where id = ?', [fwd.entry!.notificationId])).toEqual([
    { actor_user_id: admin.userId, tags: [ev.event_type] },
  ]);

  const t = await newPersonalToken(h);
  for (let i = 0; i < 21; i++) expect((await publish(h, t.token, event(h, { severity: 'x' }))).status).toBe(400);
  expect((await publish(h, t.token, event(h))).status).toBe(429);
});
