/**
 * A box that scrolls sideways (a wide table on a phone, a long line of code) must be reachable
 * from the keyboard, or its hidden part is out of reach without a mouse: each one that scrolls
 * now is a tab stop, named after its table's caption or its section, and stops being one when a
 * wider screen shows it whole. Watched for the page's life, since the dashboard and the skill
 * pages fill such boxes after the first paint.
 */
const SCROLLERS = '.table-scroll, pre, .markdown table';
const OURS = 'data-scroll-region';

const sizes = new ResizeObserver((entries) => {
  for (const { target } of entries) update(target as HTMLElement);
});

function update(box: HTMLElement): void {
  const scrolls = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
  if (scrolls && !box.hasAttribute('tabindex')) {
    box.setAttribute('tabindex', '0');
    box.setAttribute(OURS, '');
    if (!box.hasAttribute('role')) box.setAttribute('role', 'region');
    if (!box.hasAttribute('aria-label') && !box.hasAttribute('aria-labelledby')) box.setAttribute('aria-label', labelOf(box));
  } else if (!scrolls && box.hasAttribute(OURS)) {
    box.removeAttribute('tabindex');
    box.removeAttribute(OURS);
  }
}

function labelOf(box: HTMLElement): string {
  const caption = box.querySelector('caption')?.textContent?.trim();
  const heading = box.closest('section, details')?.querySelector('h2, h3, summary')?.textContent?.trim();
  const what = box.tagName === 'PRE' ? 'Code' : 'Table';
  return [what, caption || heading].filter(Boolean).join(': ').replace(/\s+/g, ' ').slice(0, 120);
}

const watched = new WeakSet<Element>();
function watch(root: ParentNode): void {
  for (const box of root.querySelectorAll<HTMLElement>(SCROLLERS)) {
    if (watched.has(box)) continue;
    watched.add(box);
    sizes.observe(box);
  }
}

watch(document);
// Rows and files filled in later change a box's content, not always its size: look again then.
new MutationObserver(() => {
  watch(document);
  for (const box of document.querySelectorAll<HTMLElement>(SCROLLERS)) update(box);
}).observe(document.body, { childList: true, subtree: true });
