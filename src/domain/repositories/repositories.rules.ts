// Pure rules of the repositories area: repository URL parsing (SPEC C bind_project_repository:
// `repo_url` -> `full_name`, `web_url`, `ssh_url`), branch names, commit display fields and the
// push-webhook signature. Which addresses are accepted and refused: agent protocol 15.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { REPO_LIMITS } from './repositories.limits.js';

export const REPOSITORY_PROVIDERS = ['gitone', 'gitea'] as const;
export type RepositoryProvider = (typeof REPOSITORY_PROVIDERS)[number];

export { REPO_LIMITS };

export const DEFAULT_BRANCH = 'main';

export interface ParsedRepoUrl {
  /** Lowercased host name, without port. */
  host: string;
  /** `owner/name` (or `group/sub/name`), as spelled in the URL, without `.git`. */
  fullName: string;
  segments: number;
  /** `https://host[:port]/full_name` (http when the URL said http). */
  webUrl: string;
  /** The ssh address: as given when the URL was one, else `git@host:full_name.git`. */
  sshUrl: string;
  isSsh: boolean;
  /** Identity of the repository within a project: `host/full_name`, lowercased. */
  key: string;
}

export type ParseResult = { ok: true; value: ParsedRepoUrl } | { ok: false; code: string; message: string };

const SEGMENT = new RegExp(`^[A-Za-z0-9_.-]{1,${REPO_LIMITS.segmentMax}}$`);
const HOST = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const SCP_LIKE = /^([A-Za-z0-9._-]{1,64})@([^:/\s]+):(?!\/)(.+)$/;

const fail = (code: string, message: string): ParseResult => ({ ok: false, code, message });

function parsePath(path: string): { fullName: string; segments: number } | { code: string; message: string } {
  let p = path.replace(/^\/+/, '');
  if (p.endsWith('/')) p = p.slice(0, -1);
  if (p.toLowerCase().endsWith('.git')) p = p.slice(0, -4);
  const parts = p.split('/');
  if (parts.length < 2 || parts.some((s) => s === '')) {
    return { code: 'repo_path_invalid', message: 'must name a repository as owner/name (e.g. https://git.example.com/team/service)' };
  }
  if (parts.length > REPO_LIMITS.maxSegments)
    return { code: 'repo_path_invalid', message: `a repository path has at most ${REPO_LIMITS.maxSegments} segments; use the repository's root URL` };
  for (const s of parts) {
    if (!SEGMENT.test(s) || s === '.' || s === '..') {
      return {
        code: 'repo_path_invalid',
        message: `path segment "${s.slice(0, 40)}" may contain only letters, digits, ".", "_" and "-"; use the repository's root URL`,
      };
    }
  }
  return { fullName: parts.join('/'), segments: parts.length };
}

/** Parses a repository address (https, http, ssh:// or scp-like). */
export function parseRepoUrl(raw: string): ParseResult {
  const text = raw.trim();
  if (text === '') return fail('required', 'must not be empty');
  if (/\s/.test(text)) return fail('repo_url_invalid', 'must not contain spaces');
  const scp = SCP_LIKE.exec(text);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const host = scp[2]!.toLowerCase();
    if (!HOST.test(host)) return fail('repo_url_invalid', `"${host.slice(0, 60)}" is not a host name`);
    const path = parsePath(scp[3]!);
    if ('code' in path) return fail(path.code, path.message);
    return {
      ok: true,
      value: { host, ...path, webUrl: `https://${host}/${path.fullName}`, sshUrl: text, isSsh: true, key: `${host}/${path.fullName}`.toLowerCase() },
    };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail('repo_url_invalid', 'must be a repository URL such as https://git.example.com/team/service or git@git.example.com:team/service.git');
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'https' && scheme !== 'http' && scheme !== 'ssh') return fail('repo_url_scheme', 'must use https, http or ssh');
  if (url.password !== '' || (scheme !== 'ssh' && url.username !== ''))
    return fail('repo_url_credentials', 'must not contain credentials; bind the plain repository URL');
  if (url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#')) return fail('repo_url_invalid', 'must not have a query or fragment');
  const host = url.hostname.toLowerCase();
  if (!HOST.test(host)) return fail('repo_url_invalid', `"${host.slice(0, 60)}" is not a host name`);
  const path = parsePath(url.pathname);
  if ('code' in path) return fail(path.code, path.message);
  const key = `${host}/${path.fullName}`.toLowerCase();
  if (scheme === 'ssh') {
    return { ok: true, value: { host, ...path, webUrl: `https://${host}/${path.fullName}`, sshUrl: text, isSsh: true, key } };
  }
  const port = url.port === '' ? '' : `:${url.port}`;
  return {
    ok: true,
    value: { host, ...path, webUrl: `${scheme}://${host}${port}/${path.fullName}`, sshUrl: `git@${host}:${path.fullName}.git`, isSsh: false, key },
  };
}

/** The provider's own rule on top of the address (gitea has no groups). */
export function providerPathIssue(provider: RepositoryProvider, parsed: ParsedRepoUrl): string | null {
  if (provider === 'gitea' && parsed.segments !== 2) return "a gitea repository is exactly owner/name; use the repository's root URL";
  return null;
}

/**
 * A branch name git would accept (a subset of `git check-ref-format --branch`): no control
 * characters, spaces, `~ ^ : ? * [ \`, no `..`, `//`, `@{`, no leading or trailing `/` or `.`,
 * no `.lock` ending, no segment starting with `.`.
 */
export function branchNameIssue(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > REPO_LIMITS.branch) return `must be at most ${REPO_LIMITS.branch} characters`;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (name === '@' || name.includes('..') || name.includes('//') || name.includes('@{')) return 'is not a valid branch name';
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock') || name.split('/').some((s) => s.startsWith('.')))
    return 'is not a valid branch name';
  if (name.startsWith('-')) return 'must not start with "-"';
  return null;
}

/** `refs/heads/<branch>` -> branch; other refs (tags, notes) -> null. */
export function branchOfRef(ref: string): string | null {
  if (!ref.startsWith('refs/heads/')) return null;
  const b = ref.slice('refs/heads/'.length);
  return branchNameIssue(b) === null ? b : null;
}

/** A branch filter given as a full ref means the branch. */
export const normalizeBranch = (b: string): string => (b.startsWith('refs/heads/') ? b.slice('refs/heads/'.length) : b);

export const shortSha = (sha: string): string => sha.slice(0, REPO_LIMITS.shortSha);

/** The first non-empty line of a commit message, at most REPO_LIMITS.title characters. */
export function commitTitle(message: string): string {
  const line =
    message
      .split(/\r?\n/)
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  const chars = Array.from(line);
  return chars.length <= REPO_LIMITS.title ? line : `${chars.slice(0, REPO_LIMITS.title - 1).join('')}…`;
}

/** Only http(s) links are shown (a push payload is data from outside). */
export const safeLink = (url: string | undefined): string | null =>
  url && /^https?:\/\/[^\s]+$/i.test(url) && url.length <= REPO_LIMITS.commitLinkMax ? url : null;

/** Hex HMAC-SHA256 of the raw body (Gitea's `X-Gitea-Signature`). */
export const pushSignature = (secret: string, raw: Uint8Array): string => createHmac('sha256', secret).update(raw).digest('hex');

/**
 * Does the signature header match? Accepts bare hex (`X-Gitea-Signature`, `X-Gogs-Signature`) or
 * `sha256=<hex>` (`X-Hub-Signature-256`). Constant-time comparison.
 */
export function signatureMatches(secret: string, raw: Uint8Array, header: string): boolean {
  const hex = header
    .trim()
    .replace(/^sha256=/i, '')
    .toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) return false;
  return timingSafeEqual(Buffer.from(hex, 'hex'), Buffer.from(pushSignature(secret, raw), 'hex'));
}
