// Is the bearer a live inbound token? A transport runs this before it reads a request body it
// cannot bound cheaply (Connect/gRPC: transports/connect/serving.ts), so an unknown, revoked or
// suspended token is refused without the body being received. The operation the request is for
// authenticates again and decides everything else (token kind, scope, budget).
import { z } from 'zod';
import { defineOperation } from '../context.js';

const Empty = z.object({});

/**
 * Inbound tokens of every kind. A personal token may come from the principal cache: an unverified
 * principal is good enough for a pre-check (the operation itself re-checks on current rows).
 * Not metered: it is part of the call it guards, which counts.
 */
export const checkInboundBearer = defineOperation<Record<string, never>, Record<string, never>>({
  name: 'tokens.check_inbound_bearer',
  auth: { kind: 'inbound', tokenKinds: ['personal', 'moderation', 'tools_claim'], cachedKinds: ['personal'] },
  budget: null,
  idempotent: false,
  input: Empty,
  handler: async () => ({}),
});
