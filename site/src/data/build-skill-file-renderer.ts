import type { WindowLike } from 'dompurify';
import hljs from 'highlight.js/lib/common';
import { JSDOM } from 'jsdom';
import { createSkillFileRenderer, type RenderedSkillFile } from '../lib/skill-file-rendering.ts';

/**
 * `SKILL.md` as the built pages show it: the shared rendering policy over jsdom's DOM (DOMPurify
 * needs one; jsdom is the DOM it is tested against outside browsers), with code blocks highlighted
 * by highlight.js, whose output is class names only. One renderer per build.
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
