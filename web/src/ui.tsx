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
/** A button a toast offers (e.g. "Undo"); the toast goes away once it is pressed. */
export interface ToastAction {
  label: string;
  run: () => void;
}
interface Toast {
  id: number;
  text: string;
  action?: ToastAction | undefined;
}
/** Shows a toast; its id, for dismissToast. */
export type ShowToast = (text: string, action?: ToastAction) => number;
const ToastContext = createContext<ShowToast>(() => 0);
const DismissContext = createContext<(id: number) => void>(() => {});
export const useToast = () => useContext(ToastContext);
/** Takes a toast away before its time (e.g. its action was done another way). */
export const useDismissToast = () => useContext(DismissContext);

/** How long a toast stays; one with keyboard focus or the pointer on it stays until they leave. */
const TOAST_MS = 8000;

let toastSeq = 0;
export function ToastProvider({ children }: { children: ComponentChildren }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const drop = useCallback((id: number) => setToasts((t) => t.filter((x) => x.id !== id)), []);
  const push = useCallback(
    (text: string, action?: ToastAction) => {
      const id = ++toastSeq;
      setToasts((t) => [...t.slice(-4), { id, text, action }]);
      const expire = () => {
        const el = document.querySelector(`.toast[data-toast="${id}"]`);
        if (el && (el.contains(document.activeElement) || el.matches(':hover'))) setTimeout(expire, 1000);
        else drop(id);
      };
      setTimeout(expire, TOAST_MS);
      return id;
    },
    [drop],
  );
  return (
    <ToastContext.Provider value={push}>
      <DismissContext.Provider value={drop}>{children}</DismissContext.Provider>
      <div class="toasts" role="status" aria-live="polite">
        {toasts.map((t) => (
          <p key={t.id} class="toast" data-toast={t.id}>
            <span>{t.text}</span>
            {t.action && (
              <button
                type="button"
                class="toast-action"
                onClick={() => {
                  drop(t.id);
                  t.action!.run();
                }}
              >
                {t.action.label}
              </button>
            )}
          </p>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
