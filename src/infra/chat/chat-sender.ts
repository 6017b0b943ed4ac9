// Chat nudges: one JSON POST to the user's incoming-webhook URL (Slack or Feishu/Lark style, the
// body is built by domain/nudges/nudge.rules.ts) through the SSRF-guarded egress client.
import type { ChatSender } from '../../domain/nudges/dispatch-nudges.js';
import type { EgressClient } from '../http-egress/egress-client.js';

export function createChatSender(egress: EgressClient, userAgent: string): ChatSender {
  return {
    async send(url, payload, idempotencyId) {
      return egress.post(url, Buffer.from(JSON.stringify(payload), 'utf8'), {
        'content-type': 'application/json; charset=utf-8',
        'user-agent': userAgent,
        // The same id on every attempt of the same (delivery, channel): receivers dedupe on it.
        'idempotency-key': idempotencyId,
      });
    },
  };
}
