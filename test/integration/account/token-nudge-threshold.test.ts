// A personal token's nudge threshold (AccountService.SetPersonalTokenNudgeThreshold, set by the
// token's owner with their agent token): `all` (default), `warn`, `critical`, `never`, within the
// severities the owner's preferences nudge for. The inbox records every event whatever the
// threshold. Another user's token id is not found and changes nothing; bad input names every field.
// A publish served from the principal cache sees the new threshold at once (the token row changed).
import { Code, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../../gen/fluxdesk/account/v1/account_pb.js';
import { ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { ChatStyle, NotificationSettingsService } from '../../../gen/fluxdesk/notifications/v1/notifications_pb.js';
import { withToken } from '../../helpers/agents.js';
import { bearer, closeSessions, fails, transportFor } from '../../helpers/connect.js';
import { event, newPersonalToken, publish, startHarness, type Harness, type TestToken } from '../../helpers/harness.js';
import { startReceiver, until, type Receiver } from '../nudges/receiver.js';

let h: Harness;
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
  h = await startHarness({ env: { NUDGE_EGRESS_ALLOW_HOSTS: '127.0.0.1', NUDGE_RELAY_INTERVAL_MS: '50' } });
});
afterAll(async () => {
  closeSessions();
  await h?.close();
  await rx?.close();
});

const sql = (q: string, params: unknown[] = []) => h.svc.deps.orm.em.fork().getConnection().execute(q, params) as Promise<any[]>;
let seq = 0;

interface Owner {
  pt: TestToken;
  account: Client<typeof AccountService>;
  chatPath: string;
}

/** A user with a personal token, a chat destination (nudging critical, warn and info) and an AccountService client. */
async function owner(): Promise<Owner> {
  const pt = await newPersonalToken(h);
  const ag = await withToken(h, pt.user, ['read:inbox', 'write:inbox']);
  const transport = transportFor(h, 'connect', [bearer(ag.token)]);
  const settings = createClient(NotificationSettingsService, transport);
  const chatPath = `/chat/t${seq++}-${pt.user.userId.slice(0, 8)}`;
  await settings.setChatDestination({ url: `${rx.url}${chatPath}`, style: ChatStyle.SLACK });
  await settings.setPreferences({ updatePushSeverities: true, pushSeverities: ['critical', 'warn', 'info'] });
  return { pt, account: createClient(AccountService, transport), chatPath };
}

const threshold = async (tokenId: string) => (await sql('select nudge_threshold from inbound_tokens where id = ?', [tokenId]))[0].nudge_threshold;
const pushedFor = async (o: Owner, severity: string) => {
  const r = await publish(h, o.pt.token, event(h, { severity, title: `${severity} ${seq++}` }));
  expect(r.status, r.text).toBe(202);
  return r.body.pushed as boolean;
};

describe('nudge threshold per personal token', () => {
  it('all by default; warn, critical and never narrow the nudges; the inbox records every event', async () => {
    const o = await owner();
    const [listed] = (await o.account.listPersonalTokens({})).tokens;
    expect(listed).toMatchObject({ tokenId: o.pt.tokenId, nudgeThreshold: 'all' });
    // A first publish also puts the token in the principal cache.
    expect(await pushedFor(o, 'info')).toBe(true);

    const set = await o.account.setPersonalTokenNudgeThreshold({ tokenId: o.pt.tokenId, nudgeThreshold: 'warn' });
    expect(set).toMatchObject({ tokenId: o.pt.tokenId, nudgeThreshold: 'warn' });
    expect((await o.account.listPersonalTokens({})).tokens[0]?.nudgeThreshold).toBe('warn');
    expect([await pushedFor(o, 'info'), await pushedFor(o, 'warn'), await pushedFor(o, 'critical')]).toEqual([false, true, true]);

    await o.account.setPersonalTokenNudgeThreshold({ tokenId: o.pt.tokenId, nudgeThreshold: 'critical' });
    expect([await pushedFor(o, 'info'), await pushedFor(o, 'warn'), await pushedFor(o, 'critical')]).toEqual([false, false, true]);

    await o.account.setPersonalTokenNudgeThreshold({ tokenId: o.pt.tokenId, nudgeThreshold: 'never' });
    expect([await pushedFor(o, 'warn'), await pushedFor(o, 'critical')]).toEqual([false, false]);
    // Idempotent: the same value again.
    expect(await o.account.setPersonalTokenNudgeThreshold({ tokenId: o.pt.tokenId, nudgeThreshold: 'never' })).toMatchObject({ nudgeThreshold: 'never' });

    // Never beyond the owner's preferences: success does not nudge for this owner, even with `all`.
    await o.account.setPersonalTokenNudgeThreshold({ tokenId: o.pt.tokenId, nudgeThreshold: 'all' });
    expect([await pushedFor(o, 'success'), await pushedFor(o, 'info')]).toEqual([false, true]);

    // Every event landed in the inbox; the chat got exactly the pushed ones (1 + 2 + 1 + 1).
    expect((await sql('select count(*)::int as n from notifications where user_id = ?', [o.pt.user.userId]))[0].n).toBe(11);
    await until('the chat nudges', () => rx.hitsFor(o.chatPath).length === 5);
    // The worker sends concurrently: which nudges arrived, in any order.
    expect(
      rx
        .hitsFor(o.chatPath)
        .map((x) => JSON.parse(x.body.toString()).text.match(/^\[(\w+)\]/)?.[1])
        .sort(),
    ).toEqual(['CRITICAL', 'CRITICAL', 'INFO', 'INFO', 'WARN']);
  });

  it('another user’s token id (and an unknown one) is not found and changes nothing', async () => {
    const a = await owner();
    const b = await owner();
    const err = await fails(b.account.setPersonalTokenNudgeThreshold({ tokenId: a.pt.tokenId, nudgeThreshold: 'never' }));
    expect(err.code).toBe(Code.NotFound);
    expect(await threshold(a.pt.tokenId)).toBe('all');
    expect(await pushedFor(a, 'warn')).toBe(true);
    const unknown = await fails(b.account.setPersonalTokenNudgeThreshold({ tokenId: '00000000-0000-4000-8000-000000000000', nudgeThreshold: 'never' }));
    expect(unknown.code).toBe(Code.NotFound);
  });

  it('bad input: invalid_argument naming every field, nothing changed', async () => {
    const o = await owner();
    const err = await fails(o.account.setPersonalTokenNudgeThreshold({ tokenId: 'not-a-uuid', nudgeThreshold: 'loud' }));
    expect(err.code).toBe(Code.InvalidArgument);
    const violations = (err.findDetails(ValidationErrorDetailSchema)[0]?.violations ?? []).map((v) => `${v.field}:${v.code}`).sort();
    expect(violations).toEqual(['nudge_threshold:invalid_enum', 'token_id:invalid_format']);
    expect(await threshold(o.pt.tokenId)).toBe('all');
  });
});
