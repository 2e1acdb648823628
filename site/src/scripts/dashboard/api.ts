/**
 * The dashboard's calls to the API, with the session cookie. The browser sends the page's Origin
 * on every POST and DELETE, which is what the API's CSRF check asks of session writes.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function api<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  const payload = (await res.json().catch(() => undefined)) as { error?: { code: string; message: string } } | undefined;
  if (!res.ok) throw new ApiError(res.status, payload?.error?.code ?? 'unknown', payload?.error?.message ?? `The server answered ${res.status}`);
  return payload as T;
}

/**
 * An admins' list for `panel`: the panel shows with the answer, and hides, answering undefined,
 * when the API refuses the caller (403: someone who is no longer an admin since /api/me said so).
 */
export async function adminGet<T>(path: string, panel: HTMLElement): Promise<T | undefined> {
  try {
    const answer = await api<T>('GET', path);
    panel.hidden = false;
    return answer;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 403)) throw error;
    panel.hidden = true;
    return undefined;
  }
}

/**
 * How a panel runs a write for the selected skill: the button is disabled meanwhile, and `status`
 * shows the sentence `write` returns, or what went wrong. Nothing runs without a selected skill.
 */
export function writeRunner<T>(status: HTMLElement, selected: () => T | undefined) {
  return async (button: HTMLButtonElement | null, write: (selected: T) => Promise<string>): Promise<void> => {
    const target = selected();
    if (!target) return;
    if (button) button.disabled = true;
    try {
      status.textContent = await write(target);
    } catch (error) {
      status.textContent = messageOf(error);
    } finally {
      if (button) button.disabled = false;
      if (button) keepFocus(button, status);
    }
  };
}

/**
 * A button whose row the write took away (a revoke) took the keyboard's focus with it, back to
 * the top of the page: the result's line takes it instead, which also has it read out.
 */
export function keepFocus(button: HTMLElement, status: HTMLElement): void {
  if (button.isConnected) return;
  status.tabIndex = -1;
  status.focus();
}

/** A message for the visitor from whatever a call threw. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'The server could not be reached. Check your connection and try again.';
}

/**
 * Destructive buttons ask twice: the first click turns the label into a confirmation for a few
 * seconds, the second acts. Returns true when this click should act.
 */
export function confirmed(button: HTMLButtonElement, verb = 'revoke'): boolean {
  if (button.dataset.confirming === 'true') return true;
  const label = button.textContent ?? '';
  button.dataset.confirming = 'true';
  button.textContent = `Click again to ${verb}`;
  setTimeout(() => {
    if (!button.isConnected) return;
    button.dataset.confirming = 'false';
    button.textContent = label;
  }, 4000);
  return false;
}
