import { createSkillMarkdownRenderer } from '../lib/skill-markdown.ts';

/**
 * The Worker that reads a `SKILL.md` for the page of a skill newer than the build
 * (scripts/skill-page.ts): given the file's text, it answers its front matter rows and its body as
 * HTML, unsanitised, which the page sanitises before showing it. marked and the YAML parser, most
 * of the renderer's script and time, so never run on the page's main thread.
 */
const read = createSkillMarkdownRenderer();

addEventListener('message', (event: MessageEvent<string>) => {
  postMessage(read(event.data));
});
