// The admin pages' own navigation (catalog review queue, moderation queue, token oversight).
import { Link } from './ui.js';
import './admin.css';

const PAGES: [string, string][] = [
  ['/admin/requests', 'Requests'],
  ['/admin/moderation', 'Moderation'],
  ['/admin/tokens', 'Tokens'],
];

export function AdminNav({ current }: { current: string }) {
  return (
    <nav class="admin-nav" aria-label="Admin">
      <ul>
        {PAGES.map(([href, name]) => (
          <li key={href}>
            <Link href={href} aria-current={href === current ? 'page' : undefined}>
              {name}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
