import type { WindowLike } from 'dompurify';
import { createSkillHtmlSanitiser } from './skill-html-sanitiser.ts';
import { createSkillMarkdownRenderer, type Highlighter, type SkillMarkdown } from './skill-markdown.ts';

/**
 * How a skill page shows its `SKILL.md`: the front matter as rows of text for a table, and the
 * Markdown body as HTML that is safe to put in the page. One policy for both places that render
 * it: the site build (with jsdom as the DOM and code highlighted) and the browser, for skills newer
 * than the build (with the page's own DOM, code left plain). Only free skills are rendered: a
 * paid skill's files never reach a static file or a visitor who has not bought it.
 *
 * Two halves, always in this order: `marked` turns the Markdown into HTML and the YAML parser
 * reads the front matter (skill-markdown.ts, no DOM needed), then DOMPurify sanitises that HTML
 * (skill-html-sanitiser.ts). The build runs both here; the browser runs the first in a Worker and
 * the second on the page (scripts/skill-page.ts), so the same policy holds on both.
 */

/** The body's HTML here is sanitised: safe to put in a page. */
export type RenderedSkillFile = SkillMarkdown;

/**
 * The version of this policy's output. The site build keeps what it rendered between builds:
 * change this whenever the same `SKILL.md` would render differently (the policy, marked's or
 * DOMPurify's options), or built pages keep the old rendering.
 */
export const RENDERING_VERSION = '2';

/**
 * A renderer over `window`'s DOM (the browser's own, or jsdom's at build time), with code
 * highlighted by `highlight` when given.
 */
export function createSkillFileRenderer(window: WindowLike, highlight?: Highlighter): (source: string) => RenderedSkillFile {
  const markdown = createSkillMarkdownRenderer(highlight);
  const sanitise = createSkillHtmlSanitiser(window);
  return (source) => {
    const read = markdown(source);
    return { ...read, html: sanitise(read.html) };
  };
}
