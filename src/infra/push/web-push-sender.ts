// Browser push nudges: the `web-push` library encrypts the payload for the subscription
// (aes128gcm, RFC 8291) and signs the VAPID JWT; the request itself leaves through the
// SSRF-guarded egress client like every request to a user-supplied URL.
import webpush from 'web-push';
import type { PushSender } from '../../domain/nudges/dispatch-nudges.js';
import type { EgressClient } from '../http-egress/egress-client.js';
import type { VapidKeys } from './vapid-keys.js';

export interface WebPushOptions {
  vapid: VapidKeys;
  /** `mailto:` or `https:` contact of the operator, sent to push services in the JWT. */
  subject: string;
  /** How long a push service keeps an undelivered message. */
  ttlSeconds: number;
}

export function createWebPushSender(egress: EgressClient, opts: WebPushOptions): PushSender {
  return {
    async send(sub, payload, o) {
      const req = webpush.generateRequestDetails({ endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }, payload, {
        vapidDetails: { subject: opts.subject, publicKey: opts.vapid.publicKey, privateKey: opts.vapid.privateKey },
        TTL: opts.ttlSeconds,
        urgency: o.urgency,
        topic: o.topic,
        contentEncoding: 'aes128gcm',
      });
      const headers: Record<string, string> = { 'idempotency-key': o.idempotencyId };
      for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = String(v);
      return egress.post(req.endpoint, new Uint8Array(req.body ?? Buffer.alloc(0)), headers);
    },
  };
}
