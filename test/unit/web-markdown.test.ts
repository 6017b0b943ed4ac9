// The web app's markdown renderer (web/src/markdown.ts): event bodies and supplements come from
// integrators, so everything that could run code, load a remote resource or leak the page is
// neutralised: raw HTML (script tags included) shown as text, javascript:/data:/vbscript: links
// left as text, images (remote or data:) rendered as their alt text only, safe links opened in a
// new tab without opener or referrer.
import { describe, expect, it } from 'vitest';
import { markdownText, previewOf, renderMarkdown } from '../../web/src/markdown.ts';

/** Tags of an HTML fragment (name and raw attributes). */
const tags = (html: string) => [...html.matchAll(/<([a-z][a-z0-9]*)\b([^>]*)>/gi)].map((m) => ({ name: m[1]!.toLowerCase(), attrs: m[2]! }));

describe('renderMarkdown', () => {
  it('renders ordinary markdown', () => {
    const html = renderMarkdown('# Build failed\n\n**main** at `abc123`\n\n- one\n- two\n\n```\ncode <b>\n```');
    expect(html).toContain('<h1>Build failed</h1>');
    expect(html).toContain('<strong>main</strong>');
    expect(html).toContain('<code>abc123</code>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('code &lt;b&gt;');
  });

  it('shows script tags and other raw HTML as text, never as elements', () => {
    const src = [
      '<script>alert(1)</script>',
      '',
      'inline <img src=x onerror=alert(1)> and <iframe src="https://evil.example"></iframe>',
      '',
      '<div onclick="alert(1)">block html</div>',
      '',
      '<style>body{display:none}</style>',
      '',
      '<a href="javascript:alert(1)">raw link</a>',
    ].join('\n');
    const html = renderMarkdown(src);
    expect(tags(html).map((t) => t.name)).toEqual(expect.not.arrayContaining(['script', 'img', 'iframe', 'div', 'style', 'a']));
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toMatch(/<[^>]+\son\w+=/i);
  });

  it('leaves javascript:, vbscript:, data: and relative links as text', () => {
    for (const target of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'vbscript:msgbox(1)',
      'data:text/html;base64,PHNjcmlwdD4=',
      'file:///etc/passwd',
      '/relative',
    ]) {
      const html = renderMarkdown(`[click](${target}) <${target}>`);
      expect(
        tags(html).filter((t) => t.name === 'a'),
        target,
      ).toEqual([]);
      expect(html, target).not.toMatch(/href=/i);
    }
    // An entity-encoded scheme is decoded before the check.
    expect(renderMarkdown('[x](&#106;avascript:alert(1))')).not.toMatch(/href=/i);
  });

  it('opens http, https and mailto links in a new tab without opener or referrer', () => {
    const html = renderMarkdown('[docs](https://example.com/a?b=1) [plain](http://example.com) [mail](mailto:ops@example.com) and https://auto.example.com');
    const links = tags(html).filter((t) => t.name === 'a');
    expect(links).toHaveLength(4);
    for (const a of links) {
      expect(a.attrs).toContain('target="_blank"');
      expect(a.attrs).toContain('rel="noopener noreferrer"');
    }
    expect(html).toContain('href="https://example.com/a?b=1"');
    expect(html).toContain('href="mailto:ops@example.com"');
    expect(html).toContain('href="https://auto.example.com"');
  });

  it('renders images, remote or data:, as their alt text only', () => {
    for (const src of ['https://tracker.example.com/pixel.png', 'http://evil.example/x.gif', 'data:image/png;base64,iVBORw0KGgo=', '/local.png']) {
      const html = renderMarkdown(`before ![the *alt* text](${src}) after`);
      expect(
        tags(html).map((t) => t.name),
        src,
      ).not.toContain('img');
      expect(html, src).not.toContain('src=');
      expect(html, src).not.toMatch(/href="(https?|data):/);
      expect(html).toContain('before');
      expect(html).toContain('after');
    }
    expect(renderMarkdown('![the alt text](https://tracker.example.com/pixel.png)')).toBe('<p>the alt text</p>\n');
    // Reference-style images and an image inside a link.
    const ref = renderMarkdown('![logo][l]\n\n[l]: https://tracker.example.com/l.png');
    expect(ref).not.toContain('<img');
    expect(ref).toContain('logo');
    const linked = renderMarkdown('[![badge](https://img.example/b.svg)](https://ci.example.com)');
    expect(linked).not.toContain('<img');
    expect(linked).toContain('href="https://ci.example.com"');
  });
});

describe('previewOf / markdownText', () => {
  it('gives plain text without markup, cut near 200 characters', () => {
    expect(markdownText('# Title\n\nSome **bold** and `code` <b>x</b>')).toBe('Title Some bold and code <b>x</b>');
    const long = `${'word '.repeat(100)}end`;
    const p = previewOf(long);
    expect(p.length).toBeLessThanOrEqual(201);
    expect(p.endsWith('…')).toBe(true);
    expect(previewOf('short body')).toBe('short body');
  });
});
