// The fluxdesk web app: who is signed in (ViewerService.GetViewer; unauthenticated -> sign-in page),
// the header, and the pages by path. The integrations page is its own chunk, loaded on first visit.
import type { ComponentType } from 'preact';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { GetViewerResponse } from '../../gen/fluxdesk/inbox/v1/inbox_pb.js';
import { csrfToken, errorText, isUnauthenticated, viewer } from './client.js';
import { InboxPage, prefetchInbox } from './inbox-page.js';
import { startLive } from './live.js';
import { Link, onNavigate, ToastProvider } from './ui.js';
import './styles.css';

function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const sync = () => setPath(location.pathname);
    const off = onNavigate(sync);
    window.addEventListener('popstate', sync);
    return () => {
      off();
      window.removeEventListener('popstate', sync);
    };
  }, []);
  return path;
}

function Header({ me, path }: { me: GetViewerResponse; path: string }) {
  const nav: [string, string, boolean][] = [
    ['/', 'Inbox', path === '/' || path.startsWith('/inbox/')],
    ['/catalog', 'Catalog', path === '/catalog'],
    ['/settings/integrations', 'Integrations', path === '/settings/integrations'],
    ['/settings/notifications', 'Notifications', path === '/settings/notifications'],
  ];
  if (me.role === 'admin') nav.push(['/admin/requests', 'Admin', path.startsWith('/admin/')]);
  return (
    <header class="site-header">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <span class="brand">fluxdesk</span>
      <nav aria-label="Main">
        <ul>
          {nav.map(([href, name, current]) => (
            <li key={href}>
              <Link href={href} aria-current={current ? 'page' : undefined}>
                {name}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div class="who">
        <span class="email">{me.email}</span>
        <form method="post" action="/auth/logout">
          <input type="hidden" name="csrf" value={csrfToken()} />
          <button type="submit">Sign out</button>
        </form>
      </div>
    </header>
  );
}

const RELOADED = 'fluxdesk.reloaded-for-chunk';
addEventListener('load', () => setTimeout(() => sessionStorage.removeItem(RELOADED), 10_000));

/** A page module loaded on demand (its own chunk). */
function Lazy<P extends object>({ load, props }: { load: () => Promise<ComponentType<P>>; props: P }) {
  const [C, setC] = useState<ComponentType<P> | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    load().then(
      (c) => setC(() => c),
      (e) => {
        // A chunk of an older build is gone (the app was redeployed while this page was open):
        // load the current build, once per page.
        if (!sessionStorage.getItem(RELOADED) && /dynamically imported module|Importing a module script failed/i.test(String(e))) {
          sessionStorage.setItem(RELOADED, '1');
          location.reload();
          return;
        }
        setError(errorText(e));
      },
    );
  }, [load]);
  if (error)
    return (
      <p class="error" role="alert">
        Could not load this page: {error}
      </p>
    );
  return C ? <C {...props} /> : <p class="loading">Loading…</p>;
}
// Chunks of their own: the inbox route ships neither (the item page holds the markdown renderer).
const loadIntegrations = () => import('./integrations-page.js').then((m) => m.IntegrationsPage);
const loadNotifications = () => import('./notifications-page.js').then((m) => m.NotificationsPage);
const loadModeration = () => import('./admin-moderation-page.js').then((m) => m.AdminModerationPage);
const loadTokens = () => import('./admin-tokens-page.js').then((m) => m.AdminTokensPage);
const loadRequests = () => import('./admin-requests-page.js').then((m) => m.AdminRequestsPage);
const loadCatalog = () => import('./catalog-page.js').then((m) => m.CatalogPage);
const loadItem = () => import('./item-page.js').then((m) => m.ItemPage);

function Placeholder({ title, text }: { title: string; text: string }) {
  useEffect(() => {
    document.title = `${title} · fluxdesk`;
  }, [title]);
  return (
    <section>
      <h1>{title}</h1>
      <p>{text}</p>
    </section>
  );
}

function Page({ path, me }: { path: string; me: GetViewerResponse }) {
  if (path === '/') return <InboxPage />;
  const item = /^\/inbox\/([^/]+)\/?$/.exec(path);
  if (item) return <Lazy load={loadItem} props={{ id: decodeURIComponent(item[1]!) }} />;
  if (path === '/settings/integrations') return <Lazy load={loadIntegrations} props={{}} />;
  if (path === '/settings/notifications') return <Lazy load={loadNotifications} props={{}} />;
  if (path === '/catalog') return <Lazy load={loadCatalog} props={{}} />;
  if (path.startsWith('/admin/')) {
    if (me.role !== 'admin') return <Placeholder title="Admins only" text="This page is for administrators. Your account is not an administrator." />;
    if (path === '/admin/moderation') return <Lazy load={loadModeration} props={{}} />;
    if (path === '/admin/tokens') return <Lazy load={loadTokens} props={{}} />;
    if (path === '/admin/requests') return <Lazy load={loadRequests} props={{}} />;
  }
  return <Placeholder title="Page not found" text="There is no page at this address." />;
}

function App() {
  const path = usePath();
  const [me, setMe] = useState<GetViewerResponse | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    viewer.getViewer({}).then(
      (v) => {
        setMe(v);
        startLive();
      },
      (e) => {
        // Unauthenticated: the client's interceptor is already sending the browser to sign in.
        if (!isUnauthenticated(e)) setError(errorText(e));
      },
    );
  }, []);
  // After an in-app navigation, keyboard and screen-reader users start at the new page's content.
  const firstPath = useRef(true);
  useEffect(() => {
    // `/` titles itself by its view (inbox-page.tsx).
    if (firstPath.current) firstPath.current = false;
    else document.getElementById('main')?.focus({ preventScroll: true });
  }, [path]);
  if (error)
    return (
      <main id="main">
        <h1>fluxdesk is not reachable</h1>
        <p role="alert">{error}</p>
      </main>
    );
  if (!me) return <p class="loading">Loading…</p>;
  return (
    <>
      <Header me={me} path={path} />
      <main id="main" tabIndex={-1}>
        <Page path={path} me={me} />
      </main>
    </>
  );
}

// The service worker shows pushed notifications (browser push is set up on the settings pages).
if ('serviceWorker' in navigator) void navigator.serviceWorker.register('/sw.js').catch(() => {});

// The inbox's first page is asked for together with the viewer (one round trip less before the list shows).
if (location.pathname === '/') prefetchInbox();

render(
  <ToastProvider>
    <App />
  </ToastProvider>,
  document.getElementById('app')!,
);
