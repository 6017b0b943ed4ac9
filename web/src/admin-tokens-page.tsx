// `/admin/tokens`: token oversight (AccountService.AdminListTokens / AdminRevokeToken). Every
// user's inbound tokens with owner, label, kind, status and last use — never a value (the RPC has
// none to give) — and an emergency "Revoke" with an optional reason (the owner is told in the inbox;
// the revoke is audited). Admins only (the server refuses anyone else). Loaded as its own chunk.
import { useEffect, useState } from 'preact/hooks';
import type { AdminTokenListItem } from '../../gen/fluxdesk/account/v1/account_pb.js';
import { AdminNav } from './admin-nav.js';
import { account, errorText } from './client.js';
import { Field, Time, useToast } from './ui.js';
import { TOKEN_KINDS, TOKEN_LIMITS } from '../../src/domain/tokens/tokens.limits.js';

/** The RPC's maximum page. */
const LIMIT = TOKEN_LIMITS.listMax;

export function AdminTokensPage() {
  const toast = useToast();
  const [tokens, setTokens] = useState<AdminTokenListItem[] | null>(null);
  const [error, setError] = useState('');
  const [kind, setKind] = useState('');
  const [includeRevoked, setIncludeRevoked] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [reason, setReason] = useState('');

  const load = async () => {
    try {
      const res = await account.adminListTokens({ kind: kind || undefined, includeRevoked, limit: LIMIT });
      setTokens(res.tokens);
      setError('');
    } catch (e) {
      setError(errorText(e));
    }
  };
  useEffect(() => {
    document.title = 'Tokens · fluxdesk';
  }, []);
  useEffect(() => {
    void load();
  }, [kind, includeRevoked]);

  const revoke = async (t: AdminTokenListItem) => {
    try {
      await account.adminRevokeToken({ tokenId: t.tokenId, reason: reason.trim() || undefined });
      toast(`Revoked “${t.label}” of ${t.ownerEmail}`);
      setConfirming(null);
      setReason('');
    } catch (e) {
      toast(`Revoke failed: ${errorText(e)}`);
    }
    await load();
  };

  return (
    <section class="admin admin-tokens" aria-labelledby="tokens-heading">
      <AdminNav current="/admin/tokens" />
      <h1 id="tokens-heading">Tokens</h1>
      <p>Every inbound token of every user. Token values are never shown here. Revoke stops a token at once and tells its owner.</p>
      <div class="filters">
        <Field label="Kind">
          {(id) => (
            <select id={id} value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
              <option value="">All</option>
              {TOKEN_KINDS.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div class="check">
          <input id="tokens-revoked" type="checkbox" checked={includeRevoked} onChange={(e) => setIncludeRevoked((e.target as HTMLInputElement).checked)} />
          <label for="tokens-revoked">Include revoked</label>
        </div>
      </div>
      {error && (
        <p class="error" role="alert">
          Could not load the tokens: {error}
        </p>
      )}
      {tokens === null && !error && <p class="loading">Loading…</p>}
      {tokens && tokens.length === 0 && <p class="empty">No tokens.</p>}
      {tokens && tokens.length >= LIMIT && <p class="total">Showing the newest {LIMIT} tokens; choose a kind to narrow the list.</p>}
      {tokens && tokens.length > 0 && (
        <table class="tokens">
          <caption class="visually-hidden">Inbound tokens</caption>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Owner</th>
              <th scope="col">Kind</th>
              <th scope="col">Status</th>
              <th scope="col">Daily limit</th>
              <th scope="col">Last use</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.tokenId}>
                <th scope="row">{t.label}</th>
                <td>{t.ownerEmail}</td>
                <td>{t.kind}</td>
                <td class={`status status-${t.status}`}>
                  {t.status}
                  {t.status === 'revoked' && t.revokedAt && (
                    <>
                      {' '}
                      <Time at={t.revokedAt} />
                    </>
                  )}
                </td>
                <td>{t.dailyLimit}</td>
                <td>{t.lastUsedAt ? <Time at={t.lastUsedAt} /> : 'Never'}</td>
                <td>
                  <Time at={t.createdAt} />
                </td>
                <td class="row-actions">
                  {t.status !== 'revoked' &&
                    (confirming === t.tokenId ? (
                      <>
                        <Field label="Reason (optional)">
                          {(id) => (
                            <input
                              id={id}
                              type="text"
                              maxLength={TOKEN_LIMITS.revokeReasonMax}
                              value={reason}
                              onInput={(e) => setReason((e.target as HTMLInputElement).value)}
                            />
                          )}
                        </Field>
                        <button type="button" class="danger" onClick={() => revoke(t)}>
                          Confirm revoke
                        </button>
                        <button type="button" onClick={() => setConfirming(null)}>
                          Cancel
                        </button>
                      </>
                    ) : (
                      <button
                        type="button"
                        onClick={() => {
                          setReason('');
                          setConfirming(t.tokenId);
                        }}
                      >
                        Revoke
                      </button>
                    ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
