// Every area's limits are named once in src/domain/<area>/<area>.limits.ts (src/domain/request.limits.ts
// for the request headers): the constants hold the spec's figures (checked as literals here, the
// independent oracle), the served protocol texts state them through {{limit.<area>.<name>}}
// placeholders (domain/limits.ts), the OpenAPI parameters and the tool texts read them, and every
// vocabulary word fits the column that stores it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIT_COLUMNS } from '../../src/domain/audit/audit.limits.js';
import { CATALOG_COLUMNS, CATALOG_LIMITS, CATALOG_SLUG } from '../../src/domain/catalog/catalog.limits.js';
import { AGENT_APPROVAL_FILTERS, ASSET_TYPES, LIVE_STATUSES } from '../../src/domain/catalog/catalog.rules.js';
import { DAILY_UPDATE_LIMITS } from '../../src/domain/daily-updates/daily-updates.limits.js';
import { EVENT_COLUMNS, EVENT_LIMITS, EXTERNAL_STATUSES, RENDERINGS, SEVERITIES, TONES } from '../../src/domain/events/event.limits.js';
import { FEEDBACK_LIMITS } from '../../src/domain/feedback/feedback.limits.js';
import { fillLimitPlaceholders } from '../../src/domain/limits.js';
import { MODERATION_LIMITS } from '../../src/domain/moderation/moderation.limits.js';
import { NUDGE_LIMITS } from '../../src/domain/nudges/nudges.limits.js';
import { PROJECT_ROLES } from '../../src/domain/projects/project-roles.rules.js';
import { PROJECT_COLUMNS, PROJECT_LIMITS, PROJECT_SLUG_PATTERN } from '../../src/domain/projects/projects.limits.js';
import { REQUEST_LIMITS } from '../../src/domain/request.limits.js';
import { TASK_LIMITS } from '../../src/domain/tasks/tasks.limits.js';
import {
  INTEGRATOR_SLUG,
  NUDGE_THRESHOLDS,
  SELF_SERVICE_DAILY_LIMITS,
  TOKEN_COLUMNS,
  TOKEN_KINDS,
  TOKEN_LIMITS,
} from '../../src/domain/tokens/tokens.limits.js';
import { USER_STATUSES } from '../../src/domain/users/onboarding.rules.js';
import { USER_ROLES } from '../../src/domain/users/users.entity.js';
import { USER_COLUMNS, USER_LIMITS } from '../../src/domain/users/users.limits.js';
import { protocolText, type ProtocolFile } from '../../src/transports/legacy/protocol-text.js';
import { TOOLS } from '../../src/transports/mcp/tools/index.js';
import { buildOpenApi } from '../../src/transports/rest-v1/openapi.js';

const raw = (file: ProtocolFile) => readFileSync(new URL(`../../src/transports/legacy/protocol/${file}`, import.meta.url), 'utf8');
const toolDescription = (name: string) => TOOLS.find((t) => t.name === name)?.description ?? '';

describe('the spec figures are the constants', () => {
  it('request headers (SPEC Limits "Idempotency-Key", "X-Request-Id")', () => {
    expect(REQUEST_LIMITS).toEqual({ idempotencyKeyMax: 200, idempotencyKeptHours: 24, requestIdMax: 120 });
  });

  it('tokens (SPEC Limits "Daily notifications per token", "Claim batch")', () => {
    expect(TOKEN_LIMITS).toMatchObject({
      labelMax: 80,
      dailyLimitMax: 1000,
      claimDailyLimitDefault: 50,
      selfServiceDailyLimitDefault: 200,
      claimBatchMax: 100,
      legacyClaimBatchMax: 50,
      listMax: 500,
      listDefault: 200,
    });
    expect(SELF_SERVICE_DAILY_LIMITS).toEqual([50, 200, 500, 1000]);
    expect(TOKEN_KINDS).toEqual(['personal', 'moderation', 'tools_claim']);
    expect(INTEGRATOR_SLUG.source).toBe('^[a-z0-9][a-z0-9-]{0,62}$');
  });

  it('catalog, users and projects (SPEC Limits "Event fields", "Catalog list `limit`")', () => {
    expect(CATALOG_LIMITS).toMatchObject({ slugMax: 80, nameMax: 200, reviewNoteMax: 500, listMax: 200, listDefault: 50, approvalsListMax: 500 });
    expect(CATALOG_SLUG.source).toBe('^[a-z0-9][a-z0-9._-]{0,79}$');
    expect(USER_LIMITS).toMatchObject({ emailMax: 120, nameMax: 200, searchResultsMax: 20 });
    expect(PROJECT_LIMITS).toMatchObject({ slugMax: 80, nameMax: 200 });
    expect(PROJECT_SLUG_PATTERN.source).toBe('^[a-z0-9][a-z0-9-]{0,79}$');
  });

  it('agent tool bounds (SPEC Limits "Agent tool bounds", "Bulk recipients") and list limits', () => {
    expect(FEEDBACK_LIMITS).toMatchObject({ titleMax: 200, bodyMax: 8000, commentMax: 8000, listMax: 100, listDefault: 20 });
    expect(EVENT_LIMITS).toMatchObject({ toolSupplementMax: 4000, bulkRecipientsMax: 100, eventTypeWindowDays: 90 });
    expect(TASK_LIMITS).toMatchObject({ titleMax: 200, descriptionMax: 8000, commentMax: 8000, reviewersMax: 50, depthMax: 10, listMax: 200, listDefault: 50 });
    expect(DAILY_UPDATE_LIMITS).toEqual({ mainTasksMax: 20, contactWindowMax: 200, blockersMax: 2000, noteMax: 2000 });
    expect(MODERATION_LIMITS).toEqual({ dismissReasonMax: 500, listMax: 200, listDefault: 50, tokenDailyLimitDefault: 200 });
    expect(NUDGE_LIMITS).toMatchObject({ receiverUrlMax: 2000, pushSubscriptionsPerUser: 20, inboxPerUserPerDay: 500 });
  });
});

describe('{{limit.<area>.<name>}} placeholders', () => {
  it('fill from the area tables; an unknown area or name throws', () => {
    expect(fillLimitPlaceholders('{{limit.task.listMax}}, {x}, {{limit.request.requestIdMax}}}')).toBe('200, {x}, 120}');
    expect(() => fillLimitPlaceholders('{{limit.nope.listMax}}')).toThrow(/unknown limit placeholder/);
    expect(() => fillLimitPlaceholders('{{limit.task.nope}}')).toThrow(/unknown limit placeholder/);
    expect(() => fillLimitPlaceholders('{{limit.task.toString}}')).toThrow(/unknown limit placeholder/);
  });

  it('the inbound protocol states the request, token and bulk limits with the spec figures', () => {
    expect(raw('inbound-protocol.md')).toContain('1-{{limit.request.idempotencyKeyMax}} visible ASCII chars');
    const text = protocolText('inbound-protocol.md');
    for (const phrase of [
      '| `X-Request-Id` | optional on requests; ≤ 120 chars of `[A-Za-z0-9_-]`.',
      '1-200 visible ASCII chars (otherwise 400, field `Idempotency-Key`, `invalid_format`). Scoped per token and operation, kept 24 h |',
      '`POST /api/v1/tokens/claim {email, label?, daily_limit? (1-1000, default 50), severity_ceiling? (ignored)}`',
      '`POST /api/v1/tokens/claim/batch {claims: 1-100}`',
      '`POST …/claim/batch {emails: ≤ 50}`',
      'with 1-100 recipients',
      'or 500 new deliveries per user per day, UTC',
      '`preview` (first ~200 chars as toggle text)',
    ]) {
      expect(text).toContain(phrase);
    }
  });

  it('the agent protocol states the tool bounds and list limits with the spec figures', () => {
    const text = protocolText('agent-protocol.md').replace(/\s+/g, ' ');
    for (const phrase of [
      '| Tool bounds | feedback body 8000 chars; supplement body 4000 chars; `reviewer_user_ids` 50; broadcast recipients 100; `search_user_by_username` 20 results |',
      '`limit?` (1-500, default 200)',
      '| `list_tasks` | `assignee?` (`me` or uuid), `project?`, `status?`, `priority?`, `limit?` (1-200, default 50)',
      '`issue_admin_moderation_token` **live** | `label` (1-80), `source_note?` (≤ 500), `daily_limit?` (1-1000, default 200)',
      '| ListHeldEvents | status? (`PENDING` default, `FORWARDED`, `DISMISSED`), all?, limit? (1-200, default 50)',
      '| DismissHeldEvent | entry_id, reason? (≤ 500)',
      '| `add_feedback_comment` | `feedbackId` (uuid), `body` (1-8000), `client_message_id?` (1-100)',
      'Limits: `list_docs`, `search_docs`, `list_doc_drafts`, `search_by_tags`: 1-100, default 20; `list_tags`: 1-200, default 100.',
      '(`^[a-z_]{1,30}$`)',
    ]) {
      expect(text).toContain(phrase);
    }
  });
});

describe('the OpenAPI parameters and tool texts read the limits', () => {
  it('X-Request-Id and Idempotency-Key', () => {
    const params = (buildOpenApi('http://127.0.0.1:8080', { metrics: true }) as { components: { parameters: Record<string, { schema: unknown }> } }).components
      .parameters;
    expect(params.XRequestId?.schema).toEqual({ type: 'string', maxLength: 120, pattern: '^[A-Za-z0-9_-]+$' });
    expect(params.IdempotencyKey?.schema).toEqual({ type: 'string', minLength: 1, maxLength: 200 });
  });

  it('tool descriptions', () => {
    expect(toolDescription('list_tasks')).toContain('limit 1-200 (default 50)');
    expect(toolDescription('catalog_item_list')).toContain('limit 1-200 (default 50)');
    expect(toolDescription('list_inbound_tokens')).toContain('limit 1-500 (default 200)');
    expect(toolDescription('create_feedback')).toContain('title (1-200), body (1-8000 characters;');
    expect(toolDescription('broadcast_event')).toContain('up to 100 recipients');
    expect(toolDescription('supplement_inbound_event')).toContain('1-4000 chars');
  });
});

describe('every vocabulary word fits the column that stores it', () => {
  const fits = (words: readonly string[], width: number) => expect(Math.max(...words.map((w) => w.length))).toBeLessThanOrEqual(width);
  it('users, projects, tokens', () => {
    fits(USER_ROLES, USER_COLUMNS.role);
    fits(USER_STATUSES, USER_COLUMNS.status);
    fits(PROJECT_ROLES, PROJECT_COLUMNS.role);
    fits(TOKEN_KINDS, TOKEN_COLUMNS.kind);
    fits(['active', 'disabled', 'revoked', 'auto_expired'], TOKEN_COLUMNS.status);
    fits(NUDGE_THRESHOLDS, TOKEN_COLUMNS.nudgeThreshold);
  });

  it('catalog and deliveries', () => {
    fits(ASSET_TYPES, CATALOG_COLUMNS.type);
    fits([...LIVE_STATUSES, ...AGENT_APPROVAL_FILTERS.revoked], CATALOG_COLUMNS.requestStatus);
    fits(SEVERITIES, EVENT_COLUMNS.severity);
    fits(TONES, EVENT_COLUMNS.tone);
    fits(RENDERINGS, EVENT_COLUMNS.rendering);
    fits(EXTERNAL_STATUSES, EVENT_COLUMNS.externalStatus);
  });

  it('an audit row keeps any request id a client may send', () => {
    expect(AUDIT_COLUMNS.requestId).toBeGreaterThanOrEqual(REQUEST_LIMITS.requestIdMax);
  });
});
