import createDOMPurify, { type Config, type DOMPurify, type WindowLike } from 'dompurify';
import { Marked, type Tokens } from 'marked';
import { isMapping, readFrontMatter } from '#core/skill-front-matter';

/** For the browser, which loads this module on demand: the file's name, without loading the parser twice. */
export { SKILL_FILE } from '#core/filename';

/**
 * How a skill page shows its `SKILL.md`: the front matter as rows of text for a table, and the
 * Markdown body as HTML that is safe to put in the page. One policy for both places that render
 * it: the site build (with jsdom as the DOM and code highlighted) and the browser, for skills newer
 * than the build (with the page's own DOM, code left plain). Only free skills are rendered: a
 * paid skill's files never reach a static file or a visitor who has not bought it.
 *
 * The Markdown is turned into HTML by `marked` and that HTML is then sanitised by DOMPurify, so
 * whatever the Markdown holds (raw HTML included) ends up as a short list of harmless elements:
 * no script, no style, no event handler, no form, no frame, no `id` to clobber the page's own.
 * Links keep only http(s) and mailto targets and `#` fragments, and carry `rel="nofollow noopener"`;
 * images are never loaded: each becomes a link to it (see {@link imagesAsLinks}). A link or image
 * to a path inside the skill has nothing to point at on the site (the files are in the file
 * viewer), so it is left as text.
 */

/** One row of the front matter table: nested mappings are flattened (`metadata.author`). */
export interface FrontMatterRow {
  key: string;
  value: string;
}

export interface RenderedSkillFile {
  /** The front matter's keys in file order; empty when it has none or it is not readable. */
  frontMatter: FrontMatterRow[];
  /** The body as sanitised HTML. */
  html: string;
  /** The body was longer than {@link RENDERED_BODY_LIMIT} and only its start is rendered. */
  truncated: boolean;
}

/**
 * The version of this policy's output. The site build keeps what it rendered between builds:
 * change this whenever the same `SKILL.md` would render differently (the policy, marked's or
 * DOMPurify's options), or built pages keep the old rendering.
 */
export const RENDERING_VERSION = '2';

/** Characters of the body rendered; a longer file is cut (the file viewer shows all of it). */
export const RENDERED_BODY_LIMIT = 100_000;

/**
 * Highlights `code` written in `language`: HTML of the code's text in `<span class="hljs-…">`
 * elements, or undefined for a language it does not know. Classes only: the page's
 * Content-Security-Policy allows no inline style.
 */
export type Highlighter = (code: string, language: string) => string | undefined;

/** The page has its own h1 (the skill's name) and h2s (its panels): the body's headings start at h3. */
const HEADING_SHIFT = 2;

const ALLOWED_TAGS = [
  'a',
  'abbr',
  'b',
  'blockquote',
  'br',
  'code',
  'dd',
  'del',
  'details',
  'div',
  'dl',
  'dt',
  'em',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'img',
  'input',
  'kbd',
  'li',
  'mark',
  'ol',
  'p',
  'pre',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'summary',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
];
const ALLOWED_ATTR = ['href', 'src', 'alt', 'title', 'class', 'align', 'colspan', 'rowspan', 'start', 'type', 'checked', 'disabled', 'open'];
/** Attributes that mean something on some elements only. */
const ONLY_ON: Record<string, readonly string[]> = {
  class: ['CODE', 'SPAN'],
  type: ['INPUT'],
  checked: ['INPUT'],
  disabled: ['INPUT'],
  open: ['DETAILS'],
  start: ['OL'],
  colspan: ['TD', 'TH'],
  rowspan: ['TD', 'TH'],
};
/** An event handler or style attribute in raw HTML: its name, after what may precede it in a tag. */
const INLINE_CODE_ATTRIBUTE = /([\s/"'])(on[a-z]+\s*=|style\s*=)/gi;

/** The highlighter's token classes and the code block's language: nothing else styles the body. */
const ALLOWED_CLASS = /^(?:hljs(?:-[a-z0-9_]+)*|language-[a-z0-9+#_-]{1,40})$/;

const PURIFY_CONFIG: Config = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  RETURN_TRUSTED_TYPE: false,
};

/** What a link or image target is, after the leniencies of URL parsing browsers apply. */
export type UrlKind = 'web' | 'fragment' | 'other';

/**
 * `web` for an absolute http(s) or mailto URL, `fragment` for `#…`, `other` for everything else
 * (relative paths, `//host`, and every other scheme: `javascript:`, `data:`, `vbscript:`…).
 * Browsers drop ASCII white space and control characters inside a URL's scheme and ignore them at
 * its ends (`java\tscript:`), so those are removed before looking.
 */
export function urlKind(url: string): UrlKind {
  const cleaned = url.replace(/[\u0000-\u0020\u007f]/g, '');
  if (cleaned.startsWith('#')) return 'fragment';
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(cleaned)?.[1]?.toLowerCase();
  return scheme === 'http' || scheme === 'https' || scheme === 'mailto' ? 'web' : 'other';
}

/**
 * A renderer over `window`'s DOM (the browser's own, or jsdom's at build time), with code
 * highlighted by `highlight` when given.
 */
export function createSkillFileRenderer(window: WindowLike, highlight?: Highlighter): (source: string) => RenderedSkillFile {
  const purify = configuredPurify(window);
  const marked = new Marked({ gfm: true, async: false });
  marked.use({
    renderer: {
      // Raw HTML in the Markdown. The sanitiser removes every handler and style attribute, but a
      // browser that parses them (DOMPurify's inert document included) reports each one as a
      // violation of the page's Content-Security-Policy, which blocked it anyway. Renamed here, they
      // are plain unknown attributes for the sanitiser to drop without a word. Not the defence:
      // DOMPurify is, whatever this misses.
      html({ text }: Tokens.HTML | Tokens.Tag) {
        return text.replace(INLINE_CODE_ATTRIBUTE, '$1x-$2');
      },
      heading({ tokens, depth }: Tokens.Heading) {
        const level = Math.min(6, depth + HEADING_SHIFT);
        return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
      },
      code({ text, lang }: Tokens.Code) {
        // As marked's own renderer does: the block's last line ends with a line break.
        const code = `${text.replace(/\n$/, '')}\n`;
        const language = (lang ?? '').trim().split(/\s+/)[0]!.toLowerCase();
        const highlighted = language && highlight ? highlight(code, language) : undefined;
        const classes = [highlighted === undefined ? '' : 'hljs', language ? `language-${language}` : ''].filter(Boolean).join(' ');
        return `<pre><code${classes ? ` class="${escapeHtml(classes)}"` : ''}>${highlighted ?? escapeHtml(code)}</code></pre>\n`;
      },
    },
  });
  return (source) => {
    const { data, body } = readFrontMatter(source);
    const truncated = body.length > RENDERED_BODY_LIMIT;
    const markdown = truncated ? body.slice(0, RENDERED_BODY_LIMIT) : body;
    const fragment = purify.sanitize(marked.parse(markdown) as string, { ...PURIFY_CONFIG, RETURN_DOM_FRAGMENT: true });
    imagesAsLinks(fragment);
    const holder = fragment.ownerDocument.createElement('div');
    holder.append(fragment);
    return { frontMatter: data ? frontMatterRows(data) : [], html: holder.innerHTML, truncated };
  };
}

/**
 * Replaces every image with a link to it (or, inside a link already, with its text): a skill
 * page loads nothing from another host, so no third party learns the address of who reads it,
 * nor when. Proxying the images through the registry was the other way; a link costs nothing,
 * fetches nothing unasked, and a reader who wants the picture is one click away.
 */
function imagesAsLinks(fragment: DocumentFragment): void {
  const document = fragment.ownerDocument;
  for (const image of [...fragment.querySelectorAll('img')]) {
    const src = image.getAttribute('src');
    const web = src !== null && urlKind(src) === 'web' ? src : undefined;
    const label = image.getAttribute('alt')?.trim() || (web && fileNameOf(web));
    let replacement: Node;
    if (web && !image.closest('a')) {
      const link = document.createElement('a');
      link.setAttribute('href', web);
      link.setAttribute('class', 'image-link');
      link.setAttribute('rel', 'nofollow noopener noreferrer');
      link.textContent = `Image: ${label}`;
      replacement = link;
    } else {
      replacement = document.createTextNode(label ? (web ? `Image: ${label}` : label) : '');
    }
    image.replaceWith(replacement);
  }
}

/** The last segment of a URL's path (`diagram.svg`), or its host when the path has none. */
function fileNameOf(url: string): string {
  try {
    const { pathname, host } = new URL(url);
    return decodeURIComponent(pathname.split('/').filter(Boolean).at(-1) ?? '') || host;
  } catch {
    return url;
  }
}

function configuredPurify(window: WindowLike): DOMPurify {
  const purify = createDOMPurify(window);
  purify.addHook('uponSanitizeAttribute', (node, data) => {
    const elements = ONLY_ON[data.attrName];
    if (elements && !elements.includes(node.nodeName)) data.keepAttr = false;
    else if (data.attrName === 'class') {
      const kept = data.attrValue.split(/\s+/).filter((name) => ALLOWED_CLASS.test(name));
      if (kept.length === 0) data.keepAttr = false;
      else data.attrValue = kept.join(' ');
    } else if (data.attrName === 'type' && data.attrValue.toLowerCase() !== 'checkbox') data.keepAttr = false;
  });
  purify.addHook('afterSanitizeAttributes', (node) => {
    const element = node as Element;
    switch (element.nodeName) {
      case 'A': {
        const href = element.getAttribute('href');
        if (href !== null && urlKind(href) === 'other') element.removeAttribute('href');
        if (element.hasAttribute('href')) element.setAttribute('rel', 'nofollow noopener');
        break;
      }
      case 'INPUT':
        // Task list boxes: a picture of a state, never a control.
        if (element.getAttribute('type') !== 'checkbox') element.setAttribute('type', 'checkbox');
        element.setAttribute('disabled', '');
        break;
      case 'PRE':
        // A long line scrolls the block sideways; the keyboard must be able to scroll it too.
        element.setAttribute('tabindex', '0');
        break;
    }
  });
  return purify;
}

/** The front matter as rows of text, in its own order; nested mappings become `parent.key` rows. */
export function frontMatterRows(data: Record<string, unknown>, prefix = ''): FrontMatterRow[] {
  return Object.entries(data).flatMap(([key, value]) =>
    isMapping(value) && Object.keys(value).length > 0 ? frontMatterRows(value, `${prefix}${key}.`) : [{ key: `${prefix}${key}`, value: asText(value) }],
  );
}

function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return value.map(asText).join(', ');
  if (value instanceof Uint8Array) return `(${value.byteLength} bytes of binary data)`;
  return JSON.stringify(value) ?? '';
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
