import { Marked, type Tokens } from 'marked';
import { isMapping, readFrontMatter } from '#core/skill-front-matter';

/**
 * The half of a `SKILL.md`'s rendering that needs no DOM (skill-file-rendering.ts is the whole):
 * the front matter read as rows of text, and the Markdown body turned into HTML by `marked`. Its
 * HTML is not safe to show until the sanitiser (skill-html-sanitiser.ts) has been over it, so it
 * may run where there is no DOM: the site build, and a Worker on the page of a skill newer than the
 * build, which keeps the YAML parser and marked (most of the renderer's code and time) off the
 * page's main thread.
 */

/** One row of the front matter table: nested mappings are flattened (`metadata.author`). */
export interface FrontMatterRow {
  key: string;
  value: string;
}

export interface SkillMarkdown {
  /** The front matter's keys in file order; empty when it has none or it is not readable. */
  frontMatter: FrontMatterRow[];
  /** The body as HTML, unsanitised: for the sanitiser only, never for a page as it is. */
  html: string;
  /** The body was longer than {@link RENDERED_BODY_LIMIT} and only its start is rendered. */
  truncated: boolean;
}

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

/** An event handler or style attribute in raw HTML: its name, after what may precede it in a tag. */
const INLINE_CODE_ATTRIBUTE = /([\s/"'])(on[a-z]+\s*=|style\s*=)/gi;

/** A reader of `SKILL.md` files, with code highlighted by `highlight` when given. */
export function createSkillMarkdownRenderer(highlight?: Highlighter): (source: string) => SkillMarkdown {
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
    return { frontMatter: data ? frontMatterRows(data) : [], html: marked.parse(markdown) as string, truncated };
  };
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
