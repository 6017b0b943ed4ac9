// Document rules without a database (SPEC "Document states", C doc tools, "Agent token scopes").
import { describe, expect, it } from 'vitest';
import { DOC_OPERATIONS } from '../../src/domain/docs/doc-operations.js';
import {
  DOC_LIMITS,
  applyTagChange,
  applyUntag,
  depthAfterMove,
  docUrl,
  isElevatedRole,
  likeContains,
  mayEditDraft,
  mayModerate,
  normalizeTags,
  slugCandidate,
  slugFromTitle,
  snippetAround,
  tagScopeFor,
} from '../../src/domain/docs/docs.rules.js';
import { GetDocInput } from '../../src/domain/docs/get-doc.js';
import { UntagDocInput } from '../../src/domain/docs/untag-doc.js';
import { CreateDocDraftInput } from '../../src/domain/docs/create-doc-draft.js';
import { hasScope } from '../../src/domain/tokens/scopes.rules.js';
import { KNOWN_SCOPES } from '../../src/domain/tokens/scopes.rules.js';
import { DOC_TOOLS } from '../../src/transports/mcp/tools/docs/index.js';
import { toListing } from '../../src/transports/mcp/tools/tool.js';

describe('slugs', () => {
  it('derives a slug from the title', () => {
    expect(slugFromTitle('Release Checklist')).toBe('release-checklist');
    expect(slugFromTitle('  Déjà vu: the "FAQ" (v2)!  ')).toBe('deja-vu-the-faq-v2');
    expect(slugFromTitle('运维手册')).toBe('page');
    expect(slugFromTitle('---')).toBe('page');
    expect(slugFromTitle('a'.repeat(200))).toHaveLength(DOC_LIMITS.slug);
    expect(slugFromTitle(`${'ab '.repeat(40)}`, 10)).toBe('ab-ab-ab-a');
    expect(slugFromTitle('ab cd', 3)).toBe('ab');
  });

  it('numbers candidates without exceeding the length', () => {
    expect(slugCandidate('guide', 1)).toBe('guide');
    expect(slugCandidate('guide', 2)).toBe('guide-2');
    expect(slugCandidate('x'.repeat(120), 12)).toBe(`${'x'.repeat(117)}-12`);
    expect(slugCandidate('abc-def', 2, 6)).toBe('abc-2');
  });
});

describe('tags', () => {
  it('normalises and de-duplicates', () => {
    expect(normalizeTags([' Ops ', 'ops', 'Release  Notes', 'DB'])).toEqual(['ops', 'release-notes', 'db']);
  });

  it('append keeps, replace sets; both report the change', () => {
    expect(applyTagChange(['a', 'b'], ['c', 'a'], 'append')).toEqual({ tags: ['a', 'b', 'c'], added: ['c'], removed: [] });
    expect(applyTagChange(['a', 'b'], ['c', 'a'], 'replace')).toEqual({ tags: ['a', 'c'], added: ['c'], removed: ['b'] });
    expect(applyTagChange([], ['x'], 'append')).toEqual({ tags: ['x'], added: ['x'], removed: [] });
  });

  it('untag removes the named tags or all', () => {
    expect(applyUntag(['a', 'b', 'c'], ['b', 'z'])).toEqual({ tags: ['a', 'c'], removed: ['b'] });
    expect(applyUntag(['b', 'a'], 'all')).toEqual({ tags: [], removed: ['a', 'b'] });
  });

  it('the scope follows the status; archived needs a restore', () => {
    expect(tagScopeFor('draft')).toBe('write:docs:draft');
    expect(tagScopeFor('published')).toBe('write:docs:publish');
    expect(tagScopeFor('archived')).toBeNull();
    // write:docs (parent) and * satisfy both; each child only itself.
    expect(hasScope(['write:docs'], ['write:docs:draft'])).toBe(true);
    expect(hasScope(['write:docs'], ['write:docs:publish'])).toBe(true);
    expect(hasScope(['write:docs:draft'], ['write:docs:publish'])).toBe(false);
    expect(hasScope(['write:docs:publish'], ['write:docs:draft'])).toBe(false);
  });
});

describe('who may', () => {
  const author = { userId: 'u-author', elevated: false };
  const member = { userId: 'u-member', elevated: false };
  const admin = { userId: 'u-admin', elevated: true };
  const page = (isLead: boolean) => ({ authorUserId: 'u-author', status: 'draft' as const, isLead });

  it('publish, archive, restore, update_doc: author, elevated roles, project leads', () => {
    expect(mayModerate(author, page(false))).toBe(true);
    expect(mayModerate(admin, page(false))).toBe(true);
    expect(mayModerate(member, page(true))).toBe(true);
    expect(mayModerate(member, page(false))).toBe(false);
  });

  it('update_doc_draft: only the author', () => {
    expect(mayEditDraft(author, page(false))).toBe(true);
    expect(mayEditDraft(admin, page(true))).toBe(false);
    expect(mayEditDraft(member, page(true))).toBe(false);
  });

  it('elevated roles are admin, super_admin and assistant', () => {
    expect(['admin', 'super_admin', 'assistant'].map(isElevatedRole)).toEqual([true, true, true]);
    expect(['member', 'hr_admin', 'coordinator'].map(isElevatedRole)).toEqual([false, false, false]);
  });

  it('depth: a moved subtree must stay within 20 levels', () => {
    expect(depthAfterMove(19, 1)).toBe(20);
    expect(depthAfterMove(19, 2)).toBeGreaterThan(DOC_LIMITS.maxDepth);
  });
});

describe('search helpers', () => {
  it('LIKE wildcards are escaped', () => {
    expect(likeContains('100%_a\\b')).toBe('%100\\%\\_a\\\\b%');
  });

  it('snippets: around the first match, one line, ellipses where cut', () => {
    const text = `${'alpha '.repeat(40)}The Needle is here\nand\tthere ${'omega '.repeat(40)}`;
    const s = snippetAround(text, 'needle');
    expect(s).toContain('The Needle is here and there');
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(s.length).toBeLessThanOrEqual(2 * DOC_LIMITS.snippetContext + 'needle'.length + 2 + 30);
    expect(snippetAround('Short title', 'title')).toBe('Short title');
    expect(snippetAround('window text', 'text', { cutBefore: true, cutAfter: true })).toBe('…window text…');
    expect(snippetAround('no match at all', 'zzz')).toBe('no match at all');
  });

  it('urls are absolute and escaped', () => {
    expect(docUrl('https://fluxdesk.example', 'ops', 'release-checklist')).toBe('https://fluxdesk.example/docs/ops/release-checklist');
  });
});

describe('input schemas', () => {
  const id = '6f1c2a4e-8d1b-4c1e-9a7e-1f2a3b4c5d6e';
  it('a page address is page_id or the space_slug + page_slug pair', () => {
    expect(GetDocInput.safeParse({ page_id: id }).success).toBe(true);
    expect(GetDocInput.safeParse({ space_slug: 'ops', page_slug: 'x' }).success).toBe(true);
    const paths = (v: unknown) => GetDocInput.safeParse(v).error?.issues.map((i) => i.path.join('.'));
    expect(paths({})).toEqual(['page_id']);
    expect(paths({ space_slug: 'ops' })).toEqual(['page_slug']);
    expect(paths({ page_slug: 'x' })).toEqual(['space_slug']);
    expect(paths({ page_id: id, space_slug: 'ops' })).toEqual(['space_slug']);
    expect(paths({ page_id: id, extra: 1 })).toEqual(['']);
  });

  it('untag needs tags or remove_all, not both and not neither', () => {
    expect(UntagDocInput.safeParse({ page_id: id, tags: ['a'] }).success).toBe(true);
    expect(UntagDocInput.safeParse({ page_id: id, remove_all: true }).success).toBe(true);
    expect(UntagDocInput.safeParse({ page_id: id }).success).toBe(false);
    expect(UntagDocInput.safeParse({ page_id: id, remove_all: false }).success).toBe(false);
    expect(UntagDocInput.safeParse({ page_id: id, tags: ['a'], remove_all: true }).success).toBe(false);
  });

  it('create_doc_draft needs project_slug or space_slug; defaults kind page and body empty', () => {
    expect(CreateDocDraftInput.safeParse({ title: 'x' }).success).toBe(false);
    expect(CreateDocDraftInput.parse({ project_slug: 'p', title: ' x ' })).toMatchObject({ title: 'x', kind: 'page', body: '', pinned: false });
  });
});

describe('doc tool roster', () => {
  const SPEC_SCOPES: Record<string, string[]> = {
    list_docs: ['read:docs'],
    get_doc: ['read:docs'],
    search_docs: ['read:docs'],
    list_doc_drafts: ['read:docs'],
    list_tags: ['read:docs'],
    search_by_tags: ['read:docs'],
    create_doc_draft: ['write:docs:draft'],
    update_doc_draft: ['write:docs:draft'],
    publish_doc_draft: ['write:docs:publish'],
    archive_doc: ['write:docs:publish'],
    restore_doc: ['write:docs:publish'],
    update_doc: ['write:docs:publish'],
    tag_doc: ['write:docs:draft', 'write:docs:publish'],
    untag_doc: ['write:docs:draft', 'write:docs:publish'],
  };

  it("each tool wraps one doc operation with the spec's scope and advertises object schemas", () => {
    expect(DOC_TOOLS.map((t) => t.name).sort()).toEqual(Object.keys(SPEC_SCOPES).sort());
    for (const t of DOC_TOOLS) {
      expect(DOC_OPERATIONS).toContain(t.operation);
      expect(t.operation.auth).toEqual({ kind: 'agent' });
      expect(t.operation.budget).toBe('agent');
      const listing = toListing(t);
      expect(listing.requiredScopes, t.name).toEqual(SPEC_SCOPES[t.name]);
      for (const s of listing.requiredScopes) expect(KNOWN_SCOPES).toContain(s);
      expect(listing.inputSchema.type, t.name).toBe('object');
      expect(listing.outputSchema?.type, t.name).toBe('object');
      expect(listing.annotations.readOnlyHint).toBe(t.name.startsWith('list_') || t.name.startsWith('search_') || t.name === 'get_doc');
    }
    expect(new Set(DOC_OPERATIONS.map((o) => o.name)).size).toBe(DOC_OPERATIONS.length);
  });
});
