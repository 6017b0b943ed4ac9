// One agent tool = a domain operation (agent auth, its scopes, its zod input) plus what MCP
// clients see. The operation's own schema is validated once, in the runner, and is also the
// advertised inputSchema: one schema, so what clients are told and what is accepted never drift.
import { z } from 'zod';
import type { Operation } from '../../../domain/context.js';
import type { AgentPrincipal } from '../../../domain/principal.js';
import type { ToolErrorForm } from '../errors.js';

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  operation: Operation<any, any, AgentPrincipal>;
  /** The output shape when the spec gives one: advertised as outputSchema, returned as structuredContent. */
  output?: z.ZodType;
  /** Tool-result error envelope form (SPEC "two tool-result error forms"); flat unless the spec names the tool. */
  errorForm?: ToolErrorForm;
  /** Does the tool change anything? (annotations for clients; writes are audited by the operation). */
  readOnly: boolean;
  /** May the write destroy something (revoke, delete)? Default false. */
  destructive?: boolean;
  /** Does repeating the call with the same arguments change nothing more? Default true. */
  idempotent?: boolean;
}

export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  requiredScopes: string[];
  /** The same scopes again: SDK clients drop unknown top-level Tool keys but keep `_meta`. */
  _meta: { 'fluxdesk/requiredScopes': string[] };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** JSON Schema 2020-12 is MCP's default dialect: `$schema` is left out so draft-07 validators also compile it. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

export function toListing(t: ToolDefinition): ToolListing {
  const requiredScopes = [...(t.operation.requiredScopes ?? [])];
  const listing: ToolListing = {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: jsonSchema(t.operation.input, 'input'),
    requiredScopes,
    _meta: { 'fluxdesk/requiredScopes': requiredScopes },
    annotations: {
      title: t.title,
      readOnlyHint: t.readOnly,
      destructiveHint: t.destructive ?? false,
      idempotentHint: t.idempotent ?? true,
      openWorldHint: false,
    },
  };
  if (t.output) listing.outputSchema = jsonSchema(t.output, 'output');
  return listing;
}
