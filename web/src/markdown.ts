// The one markdown renderer of the web app: event bodies and supplements are text from integrators,
// so the output is sanitised by construction. markdown-it with html:false (raw HTML is shown as
// text, never parsed), no images at all (an image renders as its alt text: no remote fetches, no
// tracking pixels, no data: payloads), and links only to http:, https: and mailto: targets, opened
// in a new tab without an opener or a referrer. Anything else stays literal, escaped text.
import MarkdownIt from 'markdown-it';
import { EVENT_LIMITS } from '../../src/domain/events/event.limits.js';

const ALLOWED_LINK = /^(https?:|mailto:)/i;

const md = new MarkdownIt('default', { html: false, linkify: true, typographer: false, breaks: false });

// Used by markdown-it for links, autolinks, linkify matches and images alike: an image target
// never passes (images are not rendered anyway), a link target only with an allowed scheme.
md.validateLink = (url: string): boolean => ALLOWED_LINK.test(url.trim());

md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  return md.utils.escapeHtml(self.renderInlineAsText(token.children ?? [], options, env));
};

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  token.attrSet('target', '_blank');
  token.attrSet('rel', 'noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** Sanitised HTML of a markdown text. */
export function renderMarkdown(src: string): string {
  return md.render(src);
}

/** The plain text of a markdown text (no markup), whitespace collapsed. */
export function markdownText(src: string): string {
  const parts: string[] = [];
  for (const block of md.parse(src, {})) {
    if (block.type === 'inline') {
      for (const t of block.children ?? []) if (t.type === 'text' || t.type === 'code_inline') parts.push(t.content);
      parts.push(' ');
    } else if (block.type === 'code_block' || block.type === 'fence') parts.push(block.content, ' ');
  }
  return parts.join('').replace(/\s+/g, ' ').trim();
}

/** The summary of a `preview` body: its first ~`max` characters of plain text. */
export function previewOf(src: string, max: number = EVENT_LIMITS.previewChars): string {
  const text = markdownText(src);
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
