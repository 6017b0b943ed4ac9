// `/settings/integrations`: the caller's personal tokens (AccountService). Create with a label, a
// note and a daily limit; the value and the callback signing secret are shown once, copyable; the
// list shows status and last use; which of a token's events nudge (its nudge threshold, set in the
// row); disable / enable, rotate (new value shown once, the old one's end of overlap shown) and
// delete (confirmed inline). Loaded as its own chunk: the inbox route does not ship it.
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PersonalToken } from '../../gen/fluxdesk/account/v1/account_pb.js';
import { account, errorText } from './client.js';
import { dateOf, Field, formatTime, Time, useToast } from './ui.js';
import { NUDGE_THRESHOLDS, SELF_SERVICE_DAILY_LIMITS, TOKEN_LIMITS } from '../../src/domain/tokens/tokens.limits.js';

/** What each nudge threshold means, as the select shows it. */
const THRESHOLD_LABELS: Record<(typeof NUDGE_THRESHOLDS)[number], string> = {
  all: 'All',
  warn: 'Warn and above',
  critical: 'Critical only',
  never: 'Off',
};

interface Shown {
  label: string;
  value: string;
  secret: string;
  oldValidUntil?: Timestamp;
}

export function IntegrationsPage() {
  const toast = useToast();
  const [tokens, setTokens] = useState<PersonalToken[] | null>(null);
  const [error, setError] = useState('');
  const [label, setLabel] = useState('');
  const [note, setNote] = useState('');
  const [limit, setLimit] = useState<number>(TOKEN_LIMITS.selfServiceDailyLimitDefault);
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState<Shown | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const shownRef = useRef<HTMLElement>(null);

  const load = async (): Promise<PersonalToken[]> => {
    try {
      const res = await account.listPersonalTokens({});
      setTokens(res.tokens);
      setError('');
      return res.tokens;
    } catch (e) {
      setError(errorText(e));
      return [];
    }
  };
  useEffect(() => {
    void load();
    document.title = 'Integrations · fluxdesk';
  }, []);
  useEffect(() => {
    if (shown) shownRef.current?.focus();
  }, [shown]);

  const create = async (e: Event) => {
    e.preventDefault();
    if (!label.trim()) return;
    setBusy(true);
    try {
      const res = await account.issuePersonalToken({ label: label.trim(), note: note.trim() || undefined, dailyLimit: limit });
      // The signing secret is part of the owner's token listing, not of the issue answer.
      const list = await load();
      const t = list.find((x) => x.tokenId === res.tokenId);
      setShown({ label: label.trim(), value: res.tokenValue, secret: t?.callbackSecret ?? '' });
      setLabel('');
      setNote('');
      setLimit(TOKEN_LIMITS.selfServiceDailyLimitDefault);
    } catch (err) {
      toast(`Create failed: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  };

  const act = async (what: string, f: () => Promise<unknown>) => {
    try {
      await f();
      toast(what);
    } catch (err) {
      toast(`${what.split(' ')[0]} failed: ${errorText(err)}`);
    }
    await load();
  };

  const rotate = async (t: PersonalToken) => {
    try {
      const res = await account.rotatePersonalToken({ tokenId: t.tokenId });
      setShown({ label: t.label, value: res.token, secret: res.callbackSecret, oldValidUntil: res.expiresPriorAt });
    } catch (err) {
      toast(`Rotate failed: ${errorText(err)}`);
    }
    await load();
  };

  return (
    <section class="integrations" aria-labelledby="integrations-heading">
      <h1 id="integrations-heading">Integrations</h1>
      <p>Personal tokens let a tool publish events to your own inbox. A token's value is shown once, when it is created or rotated.</p>

      <form class="token-form" onSubmit={create}>
        <h2>New personal token</h2>
        <Field label="Label">
          {(id) => (
            <input
              id={id}
              type="text"
              required
              maxLength={TOKEN_LIMITS.labelMax}
              value={label}
              onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
            />
          )}
        </Field>
        <Field label="Note">
          {(id) => <input id={id} type="text" maxLength={TOKEN_LIMITS.noteMax} value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Daily limit">
          {(id) => (
            <select id={id} value={String(limit)} onChange={(e) => setLimit(Number((e.target as HTMLSelectElement).value))}>
              {SELF_SERVICE_DAILY_LIMITS.map((n) => (
                <option key={n} value={String(n)}>
                  {n}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit" disabled={busy}>
          Create token
        </button>
      </form>

      {shown && (
        <section class="new-token" aria-label="New token" tabIndex={-1} ref={shownRef}>
          <h2>New token: {shown.label}</h2>
          <p class="once">This is shown once: copy the token value and the signing secret now. They cannot be displayed again.</p>
          <Secret label="Token value" value={shown.value} />
          <Secret label="Signing secret" value={shown.secret} />
          {shown.oldValidUntil && <p class="overlap">Old token valid until {formatTime(dateOf(shown.oldValidUntil)!)}</p>}
          <button type="button" onClick={() => setShown(null)}>
            Done
          </button>
        </section>
      )}

      <h2>Your tokens</h2>
      {error && (
        <p class="error" role="alert">
          Could not load your tokens: {error}
        </p>
      )}
      {tokens === null && !error && <p class="loading">Loading…</p>}
      {tokens && tokens.length === 0 && <p class="empty">No tokens yet.</p>}
      {tokens && tokens.length > 0 && (
        <table class="tokens">
          <caption class="visually-hidden">Your personal tokens</caption>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Token</th>
              <th scope="col">Status</th>
              <th scope="col">Note</th>
              <th scope="col">Daily limit</th>
              <th scope="col">Nudges</th>
              <th scope="col">Last use</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.tokenId}>
                <th scope="row">{t.label}</th>
                <td>
                  <code>{t.displayPrefix}…</code>
                </td>
                <td class={`status status-${t.status}`}>{t.status}</td>
                <td>{t.note ?? ''}</td>
                <td>{t.dailyLimit}</td>
                <td>
                  {t.kind === 'personal' && t.status !== 'revoked' ? (
                    <select
                      aria-label={`Nudges for ${t.label}`}
                      value={t.nudgeThreshold}
                      onChange={(e) => {
                        const nudgeThreshold = (e.target as HTMLSelectElement).value;
                        void act('Nudges set', () => account.setPersonalTokenNudgeThreshold({ tokenId: t.tokenId, nudgeThreshold }));
                      }}
                    >
                      {NUDGE_THRESHOLDS.map((n) => (
                        <option key={n} value={n}>
                          {THRESHOLD_LABELS[n]}
                        </option>
                      ))}
                    </select>
                  ) : (
                    (THRESHOLD_LABELS[t.nudgeThreshold as (typeof NUDGE_THRESHOLDS)[number]] ?? t.nudgeThreshold)
                  )}
                </td>
                <td>{t.lastUsedAt ? <Time at={t.lastUsedAt} /> : 'Never'}</td>
                <td>
                  <Time at={t.createdAt} />
                </td>
                <td class="row-actions">
                  {t.status === 'active' && (
                    <button type="button" onClick={() => act('Disabled', () => account.disablePersonalToken({ tokenId: t.tokenId }))}>
                      Disable
                    </button>
                  )}
                  {t.status === 'disabled' && (
                    <button type="button" onClick={() => act('Enabled', () => account.enablePersonalToken({ tokenId: t.tokenId }))}>
                      Enable
                    </button>
                  )}
                  {t.status === 'active' && (
                    <button type="button" onClick={() => rotate(t)}>
                      Rotate
                    </button>
                  )}
                  {(t.status === 'active' || t.status === 'disabled') &&
                    (confirming === t.tokenId ? (
                      <>
                        <button
                          type="button"
                          class="danger"
                          onClick={() => {
                            setConfirming(null);
                            void act('Deleted', () => account.deletePersonalToken({ tokenId: t.tokenId }));
                          }}
                        >
                          Confirm delete
                        </button>
                        <button type="button" onClick={() => setConfirming(null)}>
                          Cancel
                        </button>
                      </>
                    ) : (
                      <button type="button" onClick={() => setConfirming(t.tokenId)}>
                        Delete
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

function Secret({ label, value }: { label: string; value: string }) {
  const toast = useToast();
  const input = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // No clipboard permission (an insecure origin, a headless browser): select for a manual copy.
      input.current?.select();
      document.execCommand?.('copy');
    }
    toast(`${label} copied`);
  };
  return (
    <div class="secret">
      <Field label={label}>
        {(id) => <input id={id} ref={input} type="text" readOnly value={value} onFocus={(e) => (e.target as HTMLInputElement).select()} />}
      </Field>
      <button type="button" onClick={copy}>
        Copy
      </button>
    </div>
  );
}
