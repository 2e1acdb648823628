import type { WindowLike } from 'dompurify';
import hljs from 'highlight.js/lib/common';
import { JSDOM } from 'jsdom';
import { createSkillFileRenderer, RENDERING_VERSION, type RenderedSkillFile } from '../lib/skill-file-rendering.ts';
import type { SkillFileRenderer } from './skills-cache.ts';

/**
 * `SKILL.md` as the built pages show it: the shared rendering policy over jsdom's DOM (DOMPurify
 * needs one; jsdom is the DOM it is tested against outside browsers), with code blocks highlighted
 * by highlight.js, whose output is class names only. One renderer per build; the site's skill
 * cache keeps what it renders (skills-cache.ts).
 */
let render: ((source: string) => RenderedSkillFile) | undefined;

export function renderSkillFile(source: string): RenderedSkillFile {
  render ??= createSkillFileRenderer(new JSDOM('').window as unknown as WindowLike, highlight);
  return render(source);
}

function highlight(code: string, language: string): string | undefined {
  if (!hljs.getLanguage(language)) return undefined;
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}

/** The build's renderer, with the version under which the cache keeps its output. */
export const skillFileRenderer: SkillFileRenderer = {
  version: `${RENDERING_VERSION}+highlight.js-${hljs.versionString}`,
  render: renderSkillFile,
};
