// Small shared pieces: client-side navigation, times, the toast region.
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { AnchorHTMLAttributes, ComponentChildren, TargetedMouseEvent } from 'preact';
import { createContext } from 'preact';
import { useCallback, useContext, useId, useState } from 'preact/hooks';

// ---- navigation ----
type NavListener = () => void;
const navListeners = new Set<NavListener>();
export function onNavigate(l: NavListener): () => void {
  navListeners.add(l);
  return () => navListeners.delete(l);
}
export function navigate(to: string): void {
  history.pushState(null, '', to);
  for (const l of navListeners) l();
  window.scrollTo(0, 0);
}

/** An <a> that navigates inside the app (a modified click or a middle click keeps the browser's behaviour). */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { href, onClick, ...rest } = props;
  const click = (e: TargetedMouseEvent<HTMLAnchorElement>) => {
    if (onClick) (onClick as (e: TargetedMouseEvent<HTMLAnchorElement>) => void)(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={click} {...rest} />;
}

// ---- form fields ----
/**
 * A label and its control side by side, tied by for/id (not by nesting: a control nested in its
 * label would add its own value to its accessible name, e.g. "Daily limit 200").
 */
export function Field({ label, class: cls, children }: { label: string; class?: string; children: (id: string) => ComponentChildren }) {
  const id = useId();
  return (
    <div class={cls ? `field ${cls}` : 'field'}>
      <label for={id}>{label}</label>
      {children(id)}
    </div>
  );
}

// ---- times ----
const fmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const dateOf = (t: Timestamp | undefined): Date | undefined => (t ? timestampDate(t) : undefined);
export function formatTime(d: Date): string {
  return fmt.format(d);
}
export function Time({ at }: { at: Timestamp | undefined }) {
  const d = dateOf(at);
  if (!d) return null;
  return <time dateTime={d.toISOString()}>{formatTime(d)}</time>;
}

// ---- toasts ----
interface Toast {
  id: number;
  text: string;
}
const ToastContext = createContext<(text: string) => void>(() => {});
export const useToast = () => useContext(ToastContext);

let toastSeq = 0;
export function ToastProvider({ children }: { children: ComponentChildren }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const push = useCallback((text: string) => {
    const id = ++toastSeq;
    setToasts((t) => [...t.slice(-4), { id, text }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), 8000);
  }, []);
  return (
    <ToastContext.Provider value={push}>
      {children}
      <div class="toasts" role="status" aria-live="polite">
        {toasts.map((t) => (
          <p key={t.id} class="toast">
            {t.text}
          </p>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
