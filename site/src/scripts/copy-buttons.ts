import { announce } from './announce.ts';

/**
 * Every `button[data-copy=<id>]` copies the text of element <id>. Delegated, so buttons added
 * later (the dashboard's one-time secrets) work too.
 */
document.addEventListener('click', async (event) => {
  const button = (event.target as Element).closest<HTMLButtonElement>('button[data-copy]');
  if (!button) return;
  const target = document.getElementById(button.dataset.copy!);
  if (!target) return;
  const label = button.dataset.label ?? button.textContent ?? 'Copy';
  button.dataset.label = label;
  let copied = false;
  try {
    await navigator.clipboard.writeText(target.textContent ?? '');
    copied = true;
  } catch {
    // No clipboard permission (or an insecure origin): select the text for a manual copy.
    getSelection()?.selectAllChildren(target);
  }
  button.textContent = copied ? 'Copied' : 'Press Ctrl+C';
  announce(copied ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C to copy.');
  setTimeout(() => (button.textContent = label), 2000);
});
