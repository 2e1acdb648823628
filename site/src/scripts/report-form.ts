/**
 * The skill page's report button (docs/api.md §7.10). Who is signed in is asked only when the
 * button is pressed, so reading a skill page costs no API call; a visitor who is not signed in
 * is pointed to sign-in, anyone else gets the form. The API decides the rest: the author may not
 * report their own skill, and a second open report is refused.
 */
export function wireReportForm(article: HTMLElement): void {
  const panel = article.querySelector<HTMLElement>('[data-role=report]');
  if (!panel) return;
  const part = <T extends HTMLElement = HTMLElement>(role: string) => panel.querySelector<T>(`[data-role="${role}"]`)!;
  const open = panel.querySelector<HTMLButtonElement>('[data-action=open-report]')!;
  const form = part<HTMLFormElement>('report-form');
  const status = part('report-status');

  open.addEventListener('click', async () => {
    open.disabled = true;
    const me = await fetch('/api/me', { credentials: 'same-origin', headers: { accept: 'application/json' } }).catch(() => undefined);
    open.disabled = false;
    if (me?.status === 401) {
      part('report-signin').hidden = false;
      return;
    }
    if (!me?.ok) {
      status.textContent = 'The server could not be reached. Check your connection and try again.';
      return;
    }
    form.hidden = false;
    open.setAttribute('aria-expanded', 'true');
    form.querySelector<HTMLSelectElement>('select')!.focus();
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const skillId = article.dataset.skillId;
    if (!skillId) return;
    const data = new FormData(form);
    const details = String(data.get('details') ?? '').trim();
    const button = form.querySelector<HTMLButtonElement>('button[type=submit]')!;
    button.disabled = true;
    try {
      const res = await fetch(`/api/skills/${encodeURIComponent(skillId)}/reports`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({ reason: data.get('reason'), ...(details ? { details } : {}) }),
      });
      const answer = (await res.json().catch(() => undefined)) as { error?: { code: string; message: string } } | undefined;
      if (res.status === 201) {
        form.hidden = true;
        open.hidden = true;
        status.textContent = 'Thank you: your report is with the admins.';
        // The button that had the focus is gone: the thanks take it, and are read out.
        status.tabIndex = -1;
        status.focus();
      } else if (answer?.error?.code === 'already_reported') {
        status.textContent = 'You have already reported this skill; the admins will look at it.';
      } else {
        status.textContent = answer?.error?.message ?? `The server answered ${res.status}.`;
      }
    } catch {
      status.textContent = 'The server could not be reached. Check your connection and try again.';
    } finally {
      button.disabled = false;
    }
  });
}
