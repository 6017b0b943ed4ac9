// `/catalog`: the catalog a person uses (CatalogPortalService). The live rows by category, each with
// what it grants, how to apply, its link and contact, and the person's own status: "Apply" (with
// an optional note) until they have applied, then the status ("Pending", "Approved", ...) with the
// reviewer's note, "Withdraw" while pending, "Apply again" after a rejection, a revocation or a
// withdrawal. Below, the person's own requests, newest first. A decision arrives as an inbox
// notification linking here: the page lists again when one arrives on the live stream. The server
// decides everything (one live request per row, rows approved at once). Loaded as its own chunk.
import { useEffect, useState } from 'preact/hooks';
import type { CatalogAccessRequest, CatalogCategory, CatalogEntry } from '../../gen/fluxdesk/catalog/v1/catalog_portal_pb.js';
import { CATALOG_LIMITS } from '../../src/domain/catalog/catalog.limits.js';
import { errorText } from './client.js';
import { subscribe } from './live.js';
import { catalogPortal } from './settings-clients.js';
import { Field, Time, useToast } from './ui.js';
import './catalog.css';

/** A status as the page shows it. */
export const STATUS_TEXT: Record<string, string> = {
  none: 'Not applied',
  pending: 'Pending',
  approved: 'Approved',
  rejected: 'Rejected',
  revoked: 'Revoked',
  withdrawn: 'Withdrawn',
};
export const statusText = (s: string): string => STATUS_TEXT[s] ?? s;

const TYPE_TEXT: Record<string, string> = {
  saas_account: 'SaaS account',
  api_key: 'API key',
  server_access: 'Server access',
  repo_access: 'Repository access',
  ai_server: 'AI server',
  account_resource: 'Account resource',
  other: 'Other',
};

export function CatalogPage() {
  const [categories, setCategories] = useState<CatalogCategory[] | null>(null);
  const [mine, setMine] = useState<CatalogAccessRequest[]>([]);
  const [error, setError] = useState('');

  const load = async () => {
    try {
      const [cat, own] = await Promise.all([catalogPortal.listCatalog({}), catalogPortal.listMyRequests({})]);
      setCategories(cat.categories);
      setMine(own.items);
      setError('');
    } catch (e) {
      setError(errorText(e));
    }
  };
  useEffect(() => {
    document.title = 'Catalog · fluxdesk';
    void load();
    // A decision on one of the person's requests is an inbox notification linking this page.
    return subscribe((e) => {
      if (e.kind === 'ready' || (e.kind === 'upsert' && e.item.targetUrl?.endsWith('/catalog'))) void load();
    });
  }, []);

  return (
    <section class="catalog-page" aria-labelledby="catalog-heading">
      <h1 id="catalog-heading">Catalog</h1>
      <p>Tools, accounts and integrations you can ask for. Some are granted at once; others wait for an administrator's review.</p>
      {error && (
        <p class="error" role="alert">
          Could not load the catalog: {error}
        </p>
      )}
      {categories === null && !error && <p class="loading">Loading…</p>}
      {categories && categories.length === 0 && <p class="empty">The catalog is empty.</p>}
      {categories && categories.length > 0 && (
        <ul class="catalog" aria-label="Catalog">
          {categories.map((c) => (
            <li key={c.category} class="catalog-group" aria-labelledby={`cat-${c.category || 'other'}`}>
              <h2 id={`cat-${c.category || 'other'}`}>{c.display}</h2>
              <ul aria-label={c.display}>
                {c.entries.map((e) => (
                  <Entry key={e.id} entry={e} onChanged={load} />
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
      <h2 id="my-requests-heading">My requests</h2>
      {mine.length === 0 ? (
        <p class="empty">You have not applied for anything yet.</p>
      ) : (
        <ul class="my-requests" aria-labelledby="my-requests-heading">
          {mine.map((r) => (
            <li key={r.id}>
              <strong>{r.catalogName}</strong> · <span class={`req-status req-${r.status}`}>{statusText(r.status)}</span> · applied <Time at={r.requestedAt} />
              {r.reviewedAt && (
                <>
                  {' '}
                  · decided <Time at={r.reviewedAt} />
                </>
              )}
              {r.reviewNote && <span class="review-note"> · Reviewer's note: {r.reviewNote}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Entry({ entry, onChanged }: { entry: CatalogEntry; onChanged: () => Promise<void> }) {
  const toast = useToast();
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const status = entry.myStatus;
  const req = entry.myRequest;
  const headingId = `entry-${entry.id}`;
  const canApply = status !== 'pending' && status !== 'approved';

  const run = async (done: (ok: unknown) => string, f: () => Promise<unknown>, failed: string) => {
    setBusy(true);
    try {
      toast(done(await f()));
      await onChanged();
    } catch (e) {
      toast(`${failed}: ${errorText(e)}`);
    } finally {
      setBusy(false);
    }
  };
  const apply = (e: Event) => {
    e.preventDefault();
    void run(
      (out) => {
        const s = (out as { request?: CatalogAccessRequest }).request?.status ?? 'pending';
        return s === 'approved' ? `${entry.name}: approved` : `Applied for ${entry.name}`;
      },
      async () => {
        const out = await catalogPortal.apply({ catalogId: entry.id, note: note.trim() || undefined });
        setNote('');
        return out;
      },
      'Apply failed',
    );
  };
  const withdraw = () =>
    void run(
      () => `Withdrew the request for ${entry.name}`,
      () => catalogPortal.withdraw({ requestId: req!.id }),
      'Withdraw failed',
    );

  return (
    <li class={`catalog-entry status-${status}`} aria-labelledby={headingId}>
      <h3 id={headingId}>{entry.name}</h3>
      <p class="entry-meta">
        {TYPE_TEXT[entry.type] ?? entry.type}
        {entry.approvalRequired ? ' · needs an administrator’s approval' : ' · granted at once'}
        {entry.contact && (
          <>
            {' '}
            · contact <a href={`mailto:${entry.contact.email}`}>{entry.contact.name || entry.contact.email}</a>
          </>
        )}
        {entry.url && (
          <>
            {' '}
            ·{' '}
            <a href={entry.url} target="_blank" rel="noopener noreferrer">
              More about {entry.name}
            </a>
          </>
        )}
      </p>
      {entry.description && <p class="entry-description">{entry.description}</p>}
      {entry.applicationGuide && (
        <details class="entry-guide">
          <summary>How to apply</summary>
          <p>{entry.applicationGuide}</p>
        </details>
      )}
      {status !== 'none' && req && (
        <p class="my-status">
          Your status: <strong class={`req-status req-${status}`}>{statusText(status)}</strong>
          {status === 'pending' ? (
            <>
              {' '}
              since <Time at={req.requestedAt} />
            </>
          ) : (
            req.reviewedAt && (
              <>
                {' '}
                on <Time at={req.reviewedAt} />
              </>
            )
          )}
          {req.reviewNote && <span class="review-note"> · Reviewer's note: {req.reviewNote}</span>}
        </p>
      )}
      {status === 'pending' && (
        <button type="button" disabled={busy} onClick={withdraw}>
          Withdraw
        </button>
      )}
      {canApply && (
        <form class="apply-form" onSubmit={apply}>
          <Field label="Note (optional)">
            {(id) => (
              <input id={id} type="text" maxLength={CATALOG_LIMITS.noteMax} value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
            )}
          </Field>
          <button type="submit" disabled={busy}>
            {status === 'none' ? 'Apply' : 'Apply again'}
          </button>
        </form>
      )}
    </li>
  );
}
