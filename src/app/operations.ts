// Operator operations reachable from the CLI (locally or through the embedded server's socket).
import type { Operation } from '../domain/context.js';
import { bootstrap } from '../domain/users/bootstrap.js';
import { createUser } from '../domain/users/create-user.js';
import { createAgentToken } from '../domain/tokens/create-agent-token.js';
import { createPersonalToken } from '../domain/tokens/create-personal-token.js';
import { createProject } from '../domain/projects/create-project.js';
import { createToolsToken } from '../domain/tokens/create-tools-token.js';
import { applyForCatalogItem } from '../domain/catalog/approvals.js';

export const OPERATOR_OPERATIONS: Record<string, Operation<any, any, any>> = Object.fromEntries(
  [bootstrap, createUser, createAgentToken, createPersonalToken, createProject, createToolsToken, applyForCatalogItem].map((op) => [op.name, op]),
);
