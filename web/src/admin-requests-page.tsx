// `/admin/requests`: the catalog requests waiting for review, oldest first (CatalogPortalService
// ListPendingRequests): who applied, for which row, their note and how long ago. Per request a
// "Note" for the applicant and "Approve" / "Reject" (Review: the one review core; the applicant is
// told in their inbox). A request reviewed elsewhere meanwhile, or withdrawn, answers "already
// reviewed" / "withdrawn" and leaves the list. The server decides who may call: admins only.
// Loaded as its own chunk.
import { useEffect, useState } from 'preact/hooks';
import type { PendingCatalogRequest } from '../../gen/fluxdesk/catalog/v1/catalog_portal_pb.js';
import { CATALOG_LIMITS } from '../../src/domain/catalog/catalog.limits.js';
import { errorText } from './client.js';
import { AdminNav } from './admin-nav.js';
import { subscribe } from './live.js';
import { catalogPortal } from './settings-clients.js';
import { Field, Time, useToast } from './ui.js';

/** "3 min", "2 h", "5 days": how long a request has waited. */
export function ageText(seconds: number): string {
  if (seconds < 60) return 'under a minute';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  const days = Math.floor(seconds / 86_400);
  return days === 1 ? '1 day' : `${days} days`;
}

export function AdminRequestsPage() {
  const [items, setItems] = useState<PendingCatalogRequest[] | null>(null);
  const [error, setError] = useState('');

  const load = async () => {
    try {
      const res = await catalogPortal.listPendingRequests({ limit: CATALOG_LIMITS.pendingListMax });
      setItems(res.items);
      setError('');
    } catch (e) {
      setError(errorText(e));
    }
  };
  useEffect(() => {
    document.title = 'Pending requests · fluxdesk';
    void load();
    // A new request is an inbox notification linking this page.
    return subscribe((e) => {
      if (e.kind === 'upsert' && e.item.targetUrl?.endsWith('/admin/requests')) void load();
    });
  }, []);

  return (
    <section class="admin requests" aria-labelledby="requests-heading">
      <AdminNav current="/admin/requests" />
      <h1 id="requests-heading">Pending requests</h1>
      <p>People's requests for catalog rows, oldest first. Approving grants the access; the applicant is told either way.</p>
      {error && (
        <p class="error" role="alert">
          Could not load the requests: {error}
        </p>
      )}
      {items === null && !error && <p class="loading">Loading…</p>}
      {items && items.length === 0 && <p class="empty">No request waits for review.</p>}
      {items && items.length > 0 && (
        <ul class="held pending-requests" aria-label="Pending requests">
          {items.map((it) => (
            <PendingItem key={it.request!.id} item={it} onChanged={load} />
          ))}
        </ul>
      )}
    </section>
  );
}

function PendingItem({ item, onChanged }: { item: PendingCatalogRequest; onChanged: () => Promise<void> }) {
  const toast = useToast();
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const req = item.request!;
  const who = item.applicant!;
  const headingId = `req-${req.id}`;

  const review = (decision: 'approve' | 'reject') => async () => {
    setBusy(true);
    try {
      await catalogPortal.review({ requestId: req.id, decision, note: note.trim() || undefined });
      toast(`${decision === 'approve' ? 'Approved' : 'Rejected'}: ${who.email} for ${req.catalogName}`);
    } catch (e) {
      toast(`Review failed: ${errorText(e)}`);
    } finally {
      setBusy(false);
    }
    await onChanged();
  };

  return (
    <li class="held-item request-item" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {who.email} · {req.catalogName}
      </h2>
      <p class="held-meta">
        {who.name} applied <Time at={req.requestedAt} /> (waiting {ageText(Number(item.ageSeconds))}){item.filedByEmail && <> · filed by {item.filedByEmail}</>}
      </p>
      {req.note ? <p class="summary">Their note: {req.note}</p> : <p class="summary">No note.</p>}
      <div class="held-forward">
        <Field label="Note">
          {(id) => (
            <input id={id} type="text" maxLength={CATALOG_LIMITS.reviewNoteMax} value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
          )}
        </Field>
        <button type="button" disabled={busy} onClick={review('approve')}>
          Approve
        </button>
        <button type="button" class="danger" disabled={busy} onClick={review('reject')}>
          Reject
        </button>
      </div>
    </li>
  );
}
