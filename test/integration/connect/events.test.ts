// EventService over Connect, gRPC and gRPC-Web (proto/fluxdesk/events/v1/events.proto; inbound
// protocol 3 "Internal services may publish through Connect/gRPC ... applies the /api/v1 rules").
// Errors carry fluxdesk.common.v1.ErrorInfo; invalid_argument also ValidationErrorDetail.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema, ValidationErrorDetailSchema } from '../../../gen/fluxdesk/common/v1/errors_pb.js';
import { Health, HealthCheckResponse_ServingStatus } from '../../../gen/grpc/health/v1/health_pb.js';
import { closeSessions, eventClient, protoEvent, PROTOCOLS, transportFor } from '../../helpers/connect.js';
import { newPersonalToken, startHarness, type Harness } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  closeSessions();
  await h?.close();
});

async function connectErrorOf(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}
const errorInfo = (err: ConnectError) => err.findDetails(ErrorInfoSchema)[0];

describe.each(PROTOCOLS)('EventService over %s', (protocol) => {
  it('Publish creates a delivery (created true), a repeat is a dedup (created false)', async () => {
    const t = await newPersonalToken(h);
    const client = eventClient(h, protocol, t.token);
    const ev = protoEvent(h, { summary: 'see CI', tone: 'negative', externalStatus: 'firing', locale: 'en', labels: { repo: 'payments' } });
    const first = await client.publish({ event: ev }, { headers: { 'x-request-id': `conn-${protocol}-1` } });
    expect(first.created).toBe(true);
    const d = first.delivery!;
    expect(d.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(d).toMatchObject({
      eventType: ev.eventType,
      severity: 'warn',
      tone: 'negative',
      title: ev.title,
      summary: 'see CI',
      externalStatus: 'firing',
      locale: 'en',
      fireCount: 1,
      deduped: false,
      ok: true,
      pushed: false,
      degraded: false,
      requestId: `conn-${protocol}-1`,
      recipientUserId: t.user.userId,
      supplements: [],
    });
    expect(d.resolvedAt).toBeUndefined();
    expect(d.projectId).toBeUndefined();
    expect(d.occurredAt!.seconds).toBe(BigInt(Math.floor(new Date(ev.occurredAt).getTime() / 1000)));
    expect(d.createdAt).toBeDefined();

    const again = await client.publish({ event: { ...ev, externalStatus: 'resolved' } });
    expect(again.created).toBe(false);
    expect(again.delivery).toMatchObject({ deliveryId: d.deliveryId, deduped: true, fireCount: 2, externalStatus: 'resolved', title: ev.title });
    expect(again.delivery!.requestId).toMatch(/^req_/);
  });

  it("Get, Supplement and Resolve act on the sender's delivery", async () => {
    const t = await newPersonalToken(h);
    const client = eventClient(h, protocol, t.token);
    const { delivery } = await client.publish({ event: protoEvent(h) });
    const id = delivery!.deliveryId;

    const got = await client.get({ deliveryId: id });
    expect(got.delivery).toMatchObject({ deliveryId: id, fireCount: 1, deduped: false, supplements: [] });

    const s1 = await client.supplement({ deliveryId: id, markdownBody: 'Root cause: expired certificate.' });
    const s2 = await client.supplement({ deliveryId: id, markdownBody: 'Rolled back.' });
    expect(s1.delivery!.supplements.map((s) => s.markdownBody)).toEqual(['Root cause: expired certificate.']);
    expect(s2.delivery!.supplements.map((s) => s.markdownBody)).toEqual(['Root cause: expired certificate.', 'Rolled back.']);
    expect(s2.delivery!.supplements[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s2.delivery!.title).toBe(delivery!.title);

    const resolved = await client.resolve({ deliveryId: id, resolutionNote: 'Fixed by rollback' });
    expect(resolved.delivery).toMatchObject({ deliveryId: id, resolutionNote: 'Fixed by rollback', externalStatus: 'resolved' });
    expect(resolved.delivery!.resolvedAt).toBeDefined();
    // A second resolve keeps the first stamp and note.
    const again = await client.resolve({ deliveryId: id, resolutionNote: 'other' });
    expect(again.delivery!.resolutionNote).toBe('Fixed by rollback');
    expect(again.delivery!.resolvedAt).toEqual(resolved.delivery!.resolvedAt);

    const final = await client.get({ deliveryId: id });
    expect(final.delivery!.supplements).toHaveLength(2);
    expect(final.delivery!.resolvedAt).toEqual(resolved.delivery!.resolvedAt);
  });

  it('no token: Unauthenticated with ErrorInfo code missing_or_invalid_authorization', async () => {
    const err = await connectErrorOf(eventClient(h, protocol).publish({ event: protoEvent(h) }));
    expect(err.code).toBe(Code.Unauthenticated);
    expect(errorInfo(err)).toMatchObject({ code: 'missing_or_invalid_authorization', type: 'unauthorized' });
  });

  it('an unknown token: Unauthenticated with token_not_found', async () => {
    const err = await connectErrorOf(eventClient(h, protocol, `svc-in-pers-${'A'.repeat(32)}`).publish({ event: protoEvent(h) }));
    expect(err.code).toBe(Code.Unauthenticated);
    expect(errorInfo(err)?.code).toBe('token_not_found');
  });

  it('an invalid event: InvalidArgument with every violation in ValidationErrorDetail (proto field paths)', async () => {
    const t = await newPersonalToken(h);
    const bad = protoEvent(h, {
      title: '',
      severity: 'loud',
      externalUrl: 'http://insecure.example.com',
      specVersion: '1',
      actions: [
        { label: 'Open', url: 'https://ok.example.com' },
        { label: 'Bad', url: 'http://insecure.example.com' },
      ],
    });
    const err = await connectErrorOf(eventClient(h, protocol, t.token).publish({ event: bad }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(errorInfo(err)).toMatchObject({ code: 'schema_invalid', type: 'validation-failed' });
    const [detail] = err.findDetails(ValidationErrorDetailSchema);
    const byField = Object.fromEntries(detail!.violations.map((v) => [v.field, v.code]));
    expect(byField).toEqual({
      'event.title': 'required',
      'event.severity': 'invalid_enum',
      'event.external_url': 'invalid_format',
      'event.spec_version': 'invalid_format',
      'event.actions.1.url': 'invalid_format',
    });
    for (const v of detail!.violations) expect(v.message).not.toBe('');
  });

  it('an invalid supplement: InvalidArgument naming markdown_body', async () => {
    const t = await newPersonalToken(h);
    const client = eventClient(h, protocol, t.token);
    const { delivery } = await client.publish({ event: protoEvent(h) });
    const err = await connectErrorOf(client.supplement({ deliveryId: delivery!.deliveryId, markdownBody: '' }));
    expect(err.code).toBe(Code.InvalidArgument);
    const [detail] = err.findDetails(ValidationErrorDetailSchema);
    expect(detail!.violations.map((v) => [v.field, v.code])).toEqual([['markdown_body', 'required']]);
  });

  it('60 publishes per minute per token: rate-limit headers, then ResourceExhausted with Retry-After', async () => {
    const t = await newPersonalToken(h);
    const client = eventClient(h, protocol, t.token);
    for (let i = 0; i < 60; i++) {
      let headers: Headers | undefined;
      await client.publish({ event: protoEvent(h) }, { onHeader: (hd) => (headers = hd) });
      expect(headers?.get('x-ratelimit-limit')).toBe('60');
      expect(headers?.get('x-ratelimit-remaining')).toBe(String(59 - i));
    }
    const err = await connectErrorOf(client.publish({ event: protoEvent(h) }));
    expect(err.code).toBe(Code.ResourceExhausted);
    expect(errorInfo(err)).toMatchObject({ code: 'rate_limited', type: 'rate-limited' });
    expect(Number(err.metadata.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(err.metadata.get('x-ratelimit-remaining')).toBe('0');
  });

  it("another token's delivery: PermissionDenied (not_sender) on Get, Resolve and Supplement; unknown id NotFound", async () => {
    const owner = await newPersonalToken(h);
    const other = await newPersonalToken(h);
    const { delivery } = await eventClient(h, protocol, owner.token).publish({ event: protoEvent(h) });
    const client = eventClient(h, protocol, other.token);
    for (const call of [
      () => client.get({ deliveryId: delivery!.deliveryId }),
      () => client.resolve({ deliveryId: delivery!.deliveryId }),
      () => client.supplement({ deliveryId: delivery!.deliveryId, markdownBody: 'x' }),
    ]) {
      const err = await connectErrorOf(call());
      expect(err.code).toBe(Code.PermissionDenied);
      expect(errorInfo(err)?.code).toBe('not_sender');
    }
    const missing = await connectErrorOf(client.get({ deliveryId: '00000000-0000-4000-8000-000000000000' }));
    expect(missing.code).toBe(Code.NotFound);
    expect(errorInfo(missing)?.code).toBe('not_found');
  });
});

describe('grpc.health.v1 Health', () => {
  it('Check answers SERVING over gRPC, for the server and for EventService', async () => {
    const health = createClient(Health, transportFor(h, 'grpc'));
    expect((await health.check({ service: '' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect((await health.check({ service: 'fluxdesk.events.v1.EventService' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    const err = await connectErrorOf(health.check({ service: 'no.such.Service' }));
    expect(err.code).toBe(Code.NotFound);
  });
});

describe('buf curl (offline, schema from proto/)', () => {
  it('publishes over gRPC with a bearer token and prints the JSON answer', async () => {
    const t = await newPersonalToken(h);
    const ev = protoEvent(h);
    const body = JSON.stringify({
      event: { spec_version: '2', event_id: ev.eventId, event_type: ev.eventType, severity: ev.severity, title: ev.title, occurred_at: ev.occurredAt },
    });
    const port = new URL(h.grpcUrl).port;
    const { stdout } = await promisify(execFile)(
      'npx',
      [
        'buf',
        'curl',
        '--protocol',
        'grpc',
        '--http2-prior-knowledge',
        '--schema',
        'proto',
        '-H',
        `authorization: Bearer ${t.token}`,
        '-H',
        'x-request-id: buf-curl-1',
        '-d',
        body,
        `http://127.0.0.1:${port}/fluxdesk.events.v1.EventService/Publish`,
      ],
      { cwd: '/work/main', timeout: 60_000 },
    );
    const answer = JSON.parse(stdout);
    expect(answer).toMatchObject({
      created: true,
      delivery: { eventType: ev.eventType, severity: 'warn', title: ev.title, fireCount: 1, ok: true, requestId: 'buf-curl-1', recipientUserId: t.user.userId },
    });
    expect(answer.delivery.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
  }, 60_000);
});
