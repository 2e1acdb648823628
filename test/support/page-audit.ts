/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults } from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * What a visitor on a phone or a desktop would notice of a page, measured in the real browser:
 * horizontal panning, words broken inside themselves where they must not be (the header, headings,
 * buttons, labels, table cells), tap targets under 44 px on a phone, text drawn too small to read, layout
 * shift, and what axe-core finds (serious and critical only) in light and dark. Each check answers a list of problems, empty when
 * the page is fine, so a failing test names every offender at once.
 */

/** The widths the site is held to: the smallest phone, the common one, a laptop. */
export const WIDTHS = [320, 375, 1280] as const;
/** Up to this width the page is a phone's: tap targets must be 44 px. */
const PHONE_MAX = 640;
const TAP_TARGET = 44;

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface PageAudit {
  /** Elements that make the page wider than the viewport (it would pan sideways). */
  overflow: string[];
  /** Words broken across lines in the header, headings, buttons, labels and table cells. */
  brokenWords: string[];
  /** Controls and links smaller than 44 × 44 px (phones only; links inside running text excepted). */
  smallTargets: string[];
  /** Text drawn under 10 px tall (a chart's labels, shrunk with their drawing). */
  tinyText: string[];
  /** Cumulative layout shift since navigation (Chromium's layout-shift entries). */
  layoutShift: number;
  /** The viewport's width. */
  width: number;
  /** axe-core's serious and critical violations, per colour scheme (dark from 375 px up). */
  axe: Record<'light' | 'dark', string[]>;
}

/** Sets the width (and a phone's height) before the page is loaded. */
export async function useWidth(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: width <= PHONE_MAX ? 740 : 900 });
}

/**
 * Audits the page as it is now: call it after the navigation and once the page has what it
 * loads (the layout shift counts from the navigation on). Leaves the page in the light scheme.
 */
export async function auditPage(page: Page): Promise<PageAudit> {
  await page.emulateMedia({ colorScheme: 'light' });
  const layout = await page.evaluate(measureLayout, { phoneMax: PHONE_MAX, tapTarget: TAP_TARGET });
  const axe = { light: await axeViolations(page), dark: [] as string[] };
  // Dark differs from light in colours only, which a phone's 320 px adds nothing to.
  if (layout.width !== WIDTHS[0]) {
    await page.emulateMedia({ colorScheme: 'dark' });
    axe.dark = await axeViolations(page);
    await page.emulateMedia({ colorScheme: 'light' });
  }
  return { ...layout, axe };
}

/** One line per problem, with the page and width, for an `expect(...).toEqual([])`. */
export function problemsOf(where: string, audit: PageAudit): string[] {
  return [
    ...audit.overflow.map((p) => `${where}: wider than the viewport: ${p}`),
    ...audit.brokenWords.map((p) => `${where}: word broken: ${p}`),
    ...audit.smallTargets.map((p) => `${where}: tap target under ${TAP_TARGET} px: ${p}`),
    ...audit.tinyText.map((p) => `${where}: text too small to read: ${p}`),
    ...(audit.layoutShift >= 0.1 ? [`${where}: layout shift ${audit.layoutShift.toFixed(3)}`] : []),
    ...audit.axe.light.map((p) => `${where} (light): ${p}`),
    ...audit.axe.dark.map((p) => `${where} (dark): ${p}`),
  ];
}

async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy (scripts from
  // its own origin only) stays as it is, and sees nothing.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(options: object): Promise<AxeResults> } }).axe;
    const { violations } = await axe.run({ resultTypes: ['violations'] });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) =>
        v.nodes.slice(0, 3).map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}: ${(n.failureSummary ?? '').split('\n').slice(1, 2).join('').trim()}`),
      );
  });
}

/** Runs in the page: everything but axe, in one pass over the DOM. */
function measureLayout({ phoneMax, tapTarget }: { phoneMax: number; tapTarget: number }): Promise<Omit<PageAudit, 'axe'>> {
  const width = document.documentElement.clientWidth;
  const name = (el: Element) => {
    const id = el.id ? `#${el.id}` : '';
    const role = el.getAttribute('data-role') ?? el.getAttribute('data-list') ?? el.getAttribute('data-field');
    const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return `${el.tagName.toLowerCase()}${id}${role ? `[${role}]` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} “${text}”`;
  };
  const visible = (el: Element) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true });
  };
  /** Inside a box that scrolls or clips sideways: its own overflow is that box's business. */
  const clipped = (el: Element) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (getComputedStyle(p).overflowX !== 'visible') return true;
    return false;
  };

  const overflow: string[] = [];
  if (document.documentElement.scrollWidth > width) {
    // Name the outermost elements that stick out, not every descendant of one; then, if none
    // does outside a scrolling box, whatever escapes one (positioned against the page, not it).
    const sticksOut = (el: Element) => el.getBoundingClientRect().right > width + 0.5;
    for (const inScrollers of [false, true]) {
      for (const el of document.body.querySelectorAll('*')) {
        if (!sticksOut(el) || (!inScrollers && clipped(el)) || (el.parentElement && sticksOut(el.parentElement))) continue;
        overflow.push(`${name(el)} ends at ${Math.round(el.getBoundingClientRect().right)} px of ${width}`);
      }
      if (overflow.length > 0) break;
    }
    if (overflow.length === 0) overflow.push(`the document is ${document.documentElement.scrollWidth} px wide in ${width}`);
  }

  const brokenWords: string[] = [];
  for (const el of document.querySelectorAll('header, h1, h2, h3, button, label, th, td, .badge, summary')) {
    // An author's SKILL.md (its front matter, its headings) is theirs to word.
    if (!visible(el) || el.closest('.skill-file')) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      // A hyphen is a place to break (a date, a slug), as a space is.
      for (const match of text.matchAll(/[^\s-]+-?/g)) {
        // Long unbroken strings (hostile names) may break: a word of a sentence must not.
        if (match[0].length > 24) continue;
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) brokenWords.push(`“${match[0]}” in ${name(el)}`);
      }
    }
  }
  for (const el of document.querySelectorAll('header *')) {
    const box = el.getBoundingClientRect();
    if (visible(el) && box.top + scrollY < -0.5) brokenWords.push(`${name(el)} starts above the page, at ${Math.round(box.top + scrollY)} px`);
  }

  const smallTargets: string[] = [];
  if (width <= phoneMax) {
    for (const el of document.querySelectorAll<HTMLElement>('a[href], button, select, textarea, summary, input:not([type=hidden])')) {
      if (!visible(el) || el.closest('[hidden], .visually-hidden')) continue;
      if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) continue; // their label is the target
      if (el.tagName === 'A' && inRunningText(el)) continue;
      // A link stretched over its card (a ::after covering the card) is as big as the card.
      const box = (getComputedStyle(el, '::after').position === 'absolute' ? el.closest('.card') : null)?.getBoundingClientRect() ?? el.getBoundingClientRect();
      if (box.height < tapTarget - 0.5 || box.width < tapTarget - 0.5) smallTargets.push(`${name(el)} is ${Math.round(box.width)}×${Math.round(box.height)}`);
    }
  }

  const tinyText: string[] = [];
  for (const text of document.querySelectorAll('svg text')) {
    const { height } = text.getBoundingClientRect();
    if (visible(text) && height < 10) tinyText.push(`${name(text)} is ${height.toFixed(1)} px tall`);
  }

  return new Promise((resolve) => {
    let layoutShift = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
        if (!entry.hadRecentInput) layoutShift += entry.value;
    }).observe({ type: 'layout-shift', buffered: true });
    setTimeout(() => resolve({ width, overflow, brokenWords, smallTargets, tinyText, layoutShift }), 100);
  });

  /** A link inside a sentence (WCAG's inline exception): its block has other words around it. */
  function inRunningText(a: HTMLElement): boolean {
    const block = a.closest('p, li, dd, td, figcaption, .markdown');
    if (!block || block.closest('nav, .chips, .orders, .pager')) return false;
    return (block.textContent ?? '').trim().length > (a.textContent ?? '').trim().length + 2;
  }
}
