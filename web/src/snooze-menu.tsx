// The snooze menu of a row (or of the selection): the presets on the browser's wall clock ("This
// evening" only before 18:00) and "Pick a time…", a datetime-local field. A menu by the ARIA pattern:
// focus on the first item when it opens, arrow keys / Home / End move, Escape closes (focus back
// where it was), a click outside or Tab closes.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { SnoozePreset } from '../../src/domain/inbox/inbox.limits.js';
import { parsePicked, pickBounds, snoozePresets, toLocalInput } from './triage.js';
import { Field } from './ui.js';

export type SnoozeChoice = { preset: SnoozePreset } | { until: Date };

const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayAndTime = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });

export function SnoozeMenu({
  id,
  labelledBy,
  onPick,
  onClose,
}: {
  /** The popup's id (the aria-controls of the button that opens it). */
  id: string;
  /** The id of the button that opened it (the menu's name). */
  labelledBy: string;
  onPick: (c: SnoozeChoice) => void;
  /** `restoreFocus`: Escape or Cancel (focus goes back); a click elsewhere or Tab keeps the focus where it went. */
  onClose: (restoreFocus: boolean) => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [picking, setPicking] = useState(false);
  const now = useMemo(() => new Date(), []);
  const presets = useMemo(() => snoozePresets(now), [now]);
  const bounds = useMemo(() => pickBounds(now), [now]);
  const [value, setValue] = useState(() => toLocalInput(presets.find((p) => p.preset === 'tomorrow')!.at));
  const [problem, setProblem] = useState('');

  // Before the next key can arrive: the focus is in the menu as soon as it shows.
  useLayoutEffect(() => {
    const first = ref.current?.querySelector<HTMLElement>(picking ? 'input' : '[role="menuitem"]');
    first?.focus();
  }, [picking]);

  useEffect(() => {
    const outside = (e: PointerEvent) => {
      const t = e.target as Element | null;
      if (!ref.current || ref.current.contains(t) || t?.closest?.(`[aria-controls="${id}"]`)) return;
      onClose(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [id, onClose]);

  const keydown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose(true);
      return;
    }
    if (picking) return;
    if (e.key === 'Tab') {
      onClose(false);
      return;
    }
    const items = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const to =
      e.key === 'ArrowDown'
        ? (at + 1) % items.length
        : e.key === 'ArrowUp'
          ? (at - 1 + items.length) % items.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? items.length - 1
              : -1;
    if (to < 0) return;
    e.preventDefault();
    items[to]?.focus();
  };

  // On the popup (the menu and the "Pick a time" form both): a listener, as the popup itself is no control.
  const keydownRef = useRef(keydown);
  keydownRef.current = keydown;
  useLayoutEffect(() => {
    const el = ref.current;
    const on = (e: KeyboardEvent) => keydownRef.current(e);
    el?.addEventListener('keydown', on);
    return () => el?.removeEventListener('keydown', on);
  }, []);

  const submit = (e: Event) => {
    e.preventDefault();
    const r = parsePicked(value, new Date());
    if ('problem' in r) setProblem(r.problem);
    else onPick({ until: r.until });
  };

  return (
    <div class="snooze-pop" id={id} ref={ref}>
      {picking ? (
        <form class="snooze-pick" aria-label="Pick a snooze time" onSubmit={submit} noValidate>
          <Field label="Snooze until">
            {(fid) => (
              <input
                id={fid}
                type="datetime-local"
                required
                min={bounds.min}
                max={bounds.max}
                value={value}
                onInput={(e) => {
                  setValue((e.target as HTMLInputElement).value);
                  setProblem('');
                }}
              />
            )}
          </Field>
          {problem && (
            <p class="error" role="alert">
              {problem}
            </p>
          )}
          <div class="snooze-pick-buttons">
            <button type="submit">Set snooze</button>
            <button type="button" onClick={() => onClose(true)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div role="menu" aria-labelledby={labelledBy} class="snooze-menu">
          {presets.map((p) => (
            <button key={p.preset} type="button" role="menuitem" tabIndex={-1} onClick={() => onPick({ preset: p.preset })}>
              <span>{p.label}</span>{' '}
              <span class="snooze-at">{(p.preset === 'one_hour' || p.preset === 'this_evening' ? timeOnly : dayAndTime).format(p.at)}</span>
            </button>
          ))}
          <button type="button" role="menuitem" tabIndex={-1} onClick={() => setPicking(true)}>
            Pick a time…
          </button>
        </div>
      )}
    </div>
  );
}
