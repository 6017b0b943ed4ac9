// Audit of agent tool writes (SPEC C "Audit": source `mcp`, the tool name and an input summary;
// never token values or bodies). `recordToolAudit` writes one row for a tool's own operation;
// `withToolAudit` turns an existing agent operation into a tool that also records its row, in
// the same transaction as the operation's own writes.
import type { EntityManager } from '@mikro-orm/core';
import { defineOperation, type OpContext, type Operation } from '../context.js';
import type { AgentPrincipal } from '../principal.js';
import { insertAudit, recordAudit, type AuditInput } from './audit.js';

export interface ToolAuditInput {
  tool: string;
  action: string;
  targetType: string;
  targetId: string | null;
  /** Ids, counts and flags only. */
  summary?: Record<string, unknown>;
}

export function recordToolAudit(em: EntityManager, ctx: OpContext<AgentPrincipal>, a: ToolAuditInput): void {
  recordAudit(em, ctx, toolAudit(ctx, a));
}

const toolAudit = (ctx: OpContext<AgentPrincipal>, a: ToolAuditInput): AuditInput => ({
  action: a.action,
  actorUserId: ctx.principal.userId,
  tokenId: ctx.principal.tokenId,
  targetType: a.targetType,
  targetId: a.targetId,
  summary: { tool: a.tool, ...a.summary },
});

/** The same row written at once, one statement: for a tool that opens no transaction (broadcast_event). */
export async function insertToolAudit(em: EntityManager, ctx: OpContext<AgentPrincipal>, a: ToolAuditInput): Promise<void> {
  await insertAudit(em, ctx, toolAudit(ctx, a));
}

/**
 * The tool `tool` = the agent operation `inner` (same auth, scopes, input and rules) plus its
 * audit row. The inner operation runs through the runner (ctx.call) in this call's transaction
 * (a savepoint when it writes), so both commit or neither does.
 */
export function withToolAudit<I, O>(
  inner: Operation<I, O, AgentPrincipal>,
  tool: string,
  audit: (input: I, output: O) => Omit<ToolAuditInput, 'tool'>,
): Operation<I, O, AgentPrincipal> {
  return defineOperation<I, O, AgentPrincipal>({
    ...inner,
    name: `agent.${tool}`,
    writes: true,
    handler: async (input, ctx) => {
      const output = await ctx.call(inner, input);
      recordToolAudit(ctx.em, ctx, { tool, ...audit(input, output) });
      return output;
    },
  });
}
