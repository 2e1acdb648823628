import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, stackFetch } from '../support/cli-in-process.ts';
import { type FakeStripe, fakeStripeEnv, startFakeStripe } from '../support/fake-stripe.ts';
import { buy, sendWebhook } from '../support/purchase.ts';
import { Client, createTestStack, json, ORIGIN, type TestStack, withKey } from '../support/stack.ts';

/**
 * A purchase from the buyer's side, the whole way: sign in, check out on a fake Stripe through
 * the real SDK, Stripe's signed webhook grants the purchase, and `skillpress install` with the
 * buyer's API key installs the paid skill — no token pasted, nothing from the author.
 */
const work = mkdtempSync(join(tmpdir(), 'skillpress-paid-install-'));
const CONTENT = '---\nname: premium-review\ndescription: Reviews pull requests the paid way.\n---\n# Premium review\n\nThe paid part.\n';

let stripe: FakeStripe;
let stack: TestStack;
let skill: { id: string; slug: string };
let bob: Client;

beforeAll(async () => {
  stripe = await startFakeStripe();
  stack = await createTestStack({}, fakeStripeEnv(stripe));
  const alice = await Client.signIn(stack, 'alice');
  const published = await withKey(stack, await alice.createKey(), '/api/publish', {
    body: {
      name: 'Premium Review',
      slug: 'premium-review',
      description: 'Reviews pull requests the paid way.',
      category: 'dev tools',
      paid: true,
      price: { amount: 1299, currency: 'EUR' },
      files: [{ filename: 'SKILL.md', content: CONTENT }],
    },
  });
  skill = await json(published);
  bob = await Client.signIn(stack, 'bob');
  await stack.idle();
});
afterAll(async () => {
  await stripe.close();
  rmSync(work, { recursive: true, force: true });
});

function project(name: string): string {
  const dir = join(work, 'projects', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** `skillpress <args>` against the stack, with bob's config folder and `extra` environment. */
const cli = (cwd: string, args: string[], extra: Record<string, string> = {}) =>
  runInProcess([...args, '--registry', ORIGIN], {
    cwd,
    env: { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config'), ...extra },
    fetch: stackFetch(stack),
  });

/** Every file under `dir` as text: where a token must not be. */
function filesText(dir: string): string {
  if (!existsSync(dir)) return '';
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

describe('buying a paid skill and installing it with the CLI', () => {
  it('shows the price, refuses before the purchase, and installs after it with the stored API key', async () => {
    const info = await cli(work, ['info', skill.slug]);
    expect(info.code).toBe(0);
    expect(info.stdout).toContain('€12.99');
    expect(info.stdout).toContain(`buy it at ${ORIGIN}/skills/${skill.slug}/`);

    const key = await bob.createKey('laptop');
    expect((await cli(work, ['login', '--key', key])).code).toBe(0);
    const before = project('before');
    const refused = await cli(before, ['install', skill.slug]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('payment_required');
    expect(refused.stderr).toContain(`buy it at ${ORIGIN}/skills/${skill.slug}/`);

    // On the site: Buy → Stripe's page → back to the site, and Stripe tells the webhook.
    const { session, returnedTo } = await buy(stack, stripe, bob, skill.id);
    expect(returnedTo).toBe(`${ORIGIN}/purchase/?skill=${skill.slug}&session_id=${session.id}`);
    const { purchases } = await json(await bob.session('/api/me/purchases'));
    expect(purchases).toEqual([expect.objectContaining({ skillId: skill.id, status: 'purchased', sessionId: session.id })]);

    const dir = project('bought');
    const installed = await cli(dir, ['install', skill.slug, '--json']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.json.installed).toEqual([expect.objectContaining({ slug: skill.slug, version: '1.0.0' })]);
    expect(readFileSync(join(dir, '.agents', 'skills', skill.slug, 'SKILL.md'), 'utf8')).toBe(CONTENT);
    // The token the client asked for went to the delivery only: not to the lockfile, the output or the cache.
    const { tokens } = await json(await Client.signIn(stack, 'alice').then((alice) => alice.session(`/api/skills/${skill.id}/download-tokens`)));
    expect(tokens).toEqual([expect.objectContaining({ maxUses: 1, uses: 1 })]);
    const lockfile = readFileSync(join(dir, 'skillpress-lock.json'), 'utf8');
    expect(lockfile).toContain(skill.slug);
    for (const text of [lockfile, installed.stdout, installed.stderr, filesText(join(work, 'cache'))]) {
      expect(text).not.toMatch(/dt_[A-Za-z0-9_-]{20}/);
      expect(text).not.toContain(key);
    }
  });

  it('installs with SKILLPRESS_API_KEY too, and reproduces the lockfile the same way', async () => {
    const key = await bob.createKey('ci');
    const dir = project('ci');
    const first = await cli(dir, ['install', skill.slug], { SKILLPRESS_API_KEY: key, XDG_CONFIG_HOME: join(work, 'ci-config') });
    expect(first.code, first.stderr).toBe(0);
    rmSync(join(dir, '.agents', 'skills'), { recursive: true });
    const again = await cli(dir, ['install'], { SKILLPRESS_API_KEY: key, XDG_CONFIG_HOME: join(work, 'ci-config') });
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(dir, '.agents', 'skills', skill.slug, 'SKILL.md'), 'utf8')).toBe(CONTENT);
  });

  it('refuses the next install after a refund, with payment_required', async () => {
    const { purchases } = await json(await bob.session('/api/me/purchases'));
    const refund = await sendWebhook(stack, stripe, stripe.refund(purchases[0].sessionId));
    expect((await json(refund)).outcome).toBe('revoked');
    const dir = project('refunded');
    const refused = await cli(dir, ['install', skill.slug]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('payment_required');
    expect(existsSync(join(dir, '.agents', 'skills', skill.slug))).toBe(false);
  });
});
