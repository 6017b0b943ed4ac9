// Is the bearer a live agent token (`sk-svc-`)? The pre-check check-inbound-bearer.ts makes for
// inbound tokens, for the Connect services agent tokens call. Not metered: the call it guards counts.
import { z } from 'zod';
import { defineOperation } from '../context.js';

const Empty = z.object({});

export const checkAgentBearer = defineOperation<Record<string, never>, Record<string, never>>({
  name: 'tokens.check_agent_bearer',
  auth: { kind: 'agent' },
  budget: null,
  idempotent: false,
  input: Empty,
  handler: async () => ({}),
});
