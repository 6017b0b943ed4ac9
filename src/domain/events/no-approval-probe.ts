// Optional 422 on POST /api/v1/events (SPEC section A): when the personal token is unknown, an
// admin-owned tool may name `target_email` and send its tools-token in `X-Caller-Tools-Token` to
// learn that the employee exists but has no approved request. Any failed precondition keeps the
// plain 401, so the existence of the email is never revealed otherwise.
import type { EntityManager } from '@mikro-orm/core';
import type { Clock } from '../context.js';
import type { InboundTokenPrincipal } from '../principal.js';
import type { TokenDirectory } from '../tokens/token-directory.js';
import { DomainError } from '../errors.js';
import { authenticate } from '../tokens/authenticate.js';
import { ADMIN_ROLES } from '../users/users.entity.js';
import { findUserByEmail } from '../users/users.repository.js';
import { findItemForIntegrator, findLiveApproval } from '../catalog/catalog.repository.js';
import { USER_LIMITS } from '../users/users.limits.js';

export async function probeNoApproval(
  d: { em: EntityManager; clock: Clock; tokens: TokenDirectory; callerToolsToken?: string },
  original: DomainError,
  body: unknown,
): Promise<DomainError> {
  const { em, clock, callerToolsToken } = d;
  if (original.code !== 'token_not_found' || callerToolsToken === undefined) return original;
  const targetEmail = (body as { target_email?: unknown } | null)?.target_email;
  if (typeof targetEmail !== 'string' || targetEmail.length === 0 || targetEmail.length > USER_LIMITS.emailMax) return original;
  let tools: InboundTokenPrincipal;
  try {
    tools = (await authenticate(
      d.tokens,
      { kind: 'inbound', tokenKinds: ['tools_claim'] },
      `Bearer ${callerToolsToken.replace(/^Bearer /, '')}`,
      clock,
    )) as InboundTokenPrincipal;
  } catch {
    return original;
  }
  if (!ADMIN_ROLES.includes(tools.userRole)) return original;
  const item = await findItemForIntegrator(em, tools.integratorId);
  const user = item ? await findUserByEmail(em, targetEmail) : null;
  if (!item || !user) return original;
  if (await findLiveApproval(em, user.id, item.id)) return original;
  return new DomainError('unprocessable', `${user.email} has no approved request for ${item.slug ?? item.name}; the member must apply and be approved`, {
    code: 'inbound_no_approval',
    typeSlug: 'inbound-no-approval',
    extra: { target_email: user.email, catalog_slug: item.slug },
  });
}
