import type { Page } from 'playwright-core';
import { configFromEnv } from '#functions/platform/config';
import { createDeps } from '#functions/platform/composition';
import { upsertUser } from '#functions/store/users';
import { ensureStorage, startEmbeddedServices } from '#scripts/local/stack';
import { type ServerProcess, startServer } from './server-process.ts';

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

/**
 * The runtime as `npm start` runs it, on a store that `seed` first filled through the API of the
 * same runtime with the site off, then stopped cleanly and started again on the same port with
 * the site on. The first site build then holds the whole catalog, instead of being followed by a
 * rebuild for the writes the seed made meanwhile: each build costs about ten seconds of CPU.
 */
export async function startSeededSite<T>(env: Record<string, string>, seed: (base: string) => Promise<T>): Promise<{ server: ServerProcess; seeded: T }> {
  const seeding = await startServer({ ...env, SKILLPRESS_SITE: '0' });
  let seeded: T;
  try {
    seeded = await seed(seeding.baseUrl);
  } finally {
    await seeding.stop();
  }
  const server = await startServer({ ...env, SKILLPRESS_SITE: '1', PORT: new URL(seeding.baseUrl).port });
  return { server, seeded };
}

/** Whether the site build has made the page of the skill `slug`. */
export async function hasBuiltPage(base: string, slug: string): Promise<boolean> {
  return (await (await fetch(`${base}/skills/${slug}/`)).text()).includes(`data-slug="${slug}"`);
}

/**
 * A site debounce longer than any test file runs: the runtime builds the site once, at start,
 * and the pages of what the tests publish afterwards render in the browser from the registry.
 */
export const ONE_BUILD = String(30 * 60_000);

/**
 * Makes the dev account `login` in the store under `dataDir` as its dev sign-in would have
 * `days` ago, before any runtime opens that store (a runtime's clock cannot be set from a
 * test): an account that old publishes flagged versions once it has a clean one, instead of
 * having them held for review (docs/api.md §7.15).
 */
export async function accountMadeDaysAgoIn(dataDir: string, login: string, days: number): Promise<void> {
  const services = await startEmbeddedServices(dataDir);
  try {
    const config = configFromEnv({ ...process.env, DYNAMODB_ENDPOINT: services.dynamoEndpoint, S3_ENDPOINT: services.s3Endpoint });
    const deps = createDeps(config);
    await ensureStorage(config, deps.s3);
    await upsertUser(deps.db, { id: `dev:${login.toLowerCase()}`, login }, new Date(Date.now() - days * 86_400_000));
  } finally {
    await services.stop();
  }
}
