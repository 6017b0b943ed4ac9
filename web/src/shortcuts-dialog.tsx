// The "Keyboard shortcuts" dialog of the inbox page (`?`): a modal <dialog> (Escape and "Close"
// close it; the browser returns the focus to where it was).
import { useLayoutEffect, useRef } from 'preact/hooks';
import { SHORTCUTS } from './triage.js';

export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useLayoutEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={ref} class="shortcuts" aria-labelledby="shortcuts-heading" onClose={onClose}>
      <h2 id="shortcuts-heading">Keyboard shortcuts</h2>
      <dl>
        {SHORTCUTS.map((s) => (
          <div key={s.what} class="shortcut">
            <dt>
              {s.keys.map((seq, i) => (
                <span key={seq.join(' ')}>
                  {i > 0 && ' / '}
                  {seq.map((k, j) => (
                    <span key={k}>
                      {j > 0 && ' then '}
                      <kbd>{k}</kbd>
                    </span>
                  ))}
                </span>
              ))}
            </dt>
            <dd>{s.what}</dd>
          </div>
        ))}
      </dl>
      <p class="note">
        They work on the inbox list, not while typing in a field (the search box included: <kbd>Esc</kbd> there clears the search).
      </p>
      <form method="dialog">
        <button type="submit">Close</button>
      </form>
    </dialog>
  );
}
