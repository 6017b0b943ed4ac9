// Output shapes several token operations share (the MCP tools declare them as their output schema).
import { z } from 'zod';

/** A revoke's answer: the token is revoked, whether by this call or before it. */
export const RevokedOutput = z.object({ revoked: z.literal(true) });
