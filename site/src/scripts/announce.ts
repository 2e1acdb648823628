/**
 * Says `message` to screen readers through the page's one polite live region (`#announcer`, in
 * the layout), for results that show only as a changed button or a vanished row. Emptied first,
 * so the same words said twice are said twice.
 */
export function announce(message: string): void {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = '';
  setTimeout(() => (region.textContent = message), 50);
}
