// Audit of agent tool writes (SPEC C "Audit": source `mcp`, the tool name and an input summary;
// never token values or bodies). `recordToolAudit` writes one row for a tool's own operation;
// `withToolAudit` turns an existing agent operation into a tool that also records its row, in
// the same transaction as the operation's own writes.
import type { EntityManager } from '@mikro-orm/core';
import { defineOperation, type AgentPrincipal, type OpContext, type Operation } from '../context.js';
import { recordAudit } from '../audit/audit.js';

export interface ToolAuditInput {
  tool: string;
  action: string;
  targetType: string;
  targetId: string | null;
  /** Ids, counts and flags only. */
  summary?: Record<string, unknown>;
}

export function recordToolAudit(em: EntityManager, ctx: OpContext<AgentPrincipal>, a: ToolAuditInput): void {
  recordAudit(em, ctx, {
    action: a.action,
    actorUserId: ctx.principal.userId,
    tokenId: ctx.principal.tokenId,
    targetType: a.targetType,
    targetId: a.targetId,
    summary: { tool: a.tool, ...a.summary },
  });
}

/**
 * The tool `tool` = the agent operation `inner` (same auth, scopes, input and rules) plus its
 * audit row. The inner transaction nests (a savepoint), so both commit or neither does.
 */
export function withToolAudit<I, O>(
  inner: Operation<I, O, AgentPrincipal>,
  tool: string,
  audit: (input: I, output: O) => Omit<ToolAuditInput, 'tool'>,
): Operation<I, O, AgentPrincipal> {
  return defineOperation<I, O, AgentPrincipal>({
    ...inner,
    name: `agent.${tool}`,
    handler: (input, ctx) =>
      ctx.em.transactional(async (em) => {
        const output = await inner.handler(input, { ...ctx, em });
        recordToolAudit(em, ctx, { tool, ...audit(input, output) });
        await em.flush();
        return output;
      }),
  });
}
