import type { Page } from 'playwright-core';
import type { ServerProcess } from './server-process.ts';

/** Steps the site's browser tests share: waiting on the running server, and the dev sign-in. */

/** Polls `ready` every half second; fails after `timeoutMs` with the end of the server's output. */
export async function until(server: ServerProcess, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms:\n${server.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Signs `page` in as `login` through the dashboard's dev sign-in form, from no session. */
export async function signInAs(page: Page, base: string, login: string): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${base}/dashboard/`);
  await page.getByLabel('Dev sign-in: GitHub-style login').fill(login);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByText(`Signed in as ${login}`).waitFor();
}
