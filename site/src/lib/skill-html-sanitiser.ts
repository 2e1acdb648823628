import createDOMPurify, { type Config, type DOMPurify, type WindowLike } from 'dompurify';

/**
 * The half of a `SKILL.md`'s rendering that needs a DOM (skill-file-rendering.ts is the whole):
 * DOMPurify over the HTML that marked made of the body (skill-markdown.ts), so whatever the
 * Markdown holds (raw HTML included) ends up as a short list of harmless elements: no script, no
 * style, no event handler, no form, no frame, no `id` to clobber the page's own. Links keep only
 * http(s) and mailto targets and `#` fragments, and carry `rel="nofollow noopener"`; images are
 * never loaded: each becomes a link to it (see {@link imagesAsLinks}). A link or image to a path
 * inside the skill has nothing to point at on the site (the files are in the file viewer), so it
 * is left as text. It trusts nothing about its input: on the page of a skill newer than the build,
 * that HTML comes from a Worker, and this runs on the page itself.
 */

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
 * The sanitiser over `window`'s DOM (the browser's own, or jsdom's at build time): whatever HTML it
 * is given (raw HTML in the Markdown included, or anything at all), what it returns holds only the
 * elements and attributes above, links as {@link urlKind} allows, and no image.
 */
export function createSkillHtmlSanitiser(window: WindowLike): (html: string) => string {
  const purify = configuredPurify(window);
  return (html) => {
    const fragment = purify.sanitize(html, { ...PURIFY_CONFIG, RETURN_DOM_FRAGMENT: true });
    imagesAsLinks(fragment);
    const holder = fragment.ownerDocument.createElement('div');
    holder.append(fragment);
    return holder.innerHTML;
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
