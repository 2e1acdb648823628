import { skillPagePath } from '#core/static-paths';
import { ApiError, api } from './dashboard/api.ts';

/**
 * The return page of a checkout. Cancelled: nothing was charged. Otherwise the buyer's purchases
 * are read until the one for this Checkout Session appears: paid and granted once Stripe's
 * webhook has recorded it, which usually takes a second or two; until then, pending.
 */
interface Purchase {
  slug: string;
  sessionId: string;
  status: 'purchased' | 'refunded' | 'disputed';
}

const POLLS = 20;
const POLL_MS = 1500;

const root = document.getElementById('purchase');
if (root) void start(root);

async function start(root: HTMLElement): Promise<void> {
  const part = (role: string) => root.querySelector<HTMLElement>(`[data-role="${role}"]`)!;
  const params = new URLSearchParams(location.search);
  const slug = params.get('skill') ?? '';
  const sessionId = params.get('session_id') ?? '';
  const say = (heading: string, status: string) => {
    part('heading').textContent = heading;
    part('status').textContent = status;
    root.removeAttribute('aria-busy');
  };
  if (/^[a-z0-9-]{1,64}$/.test(slug)) part('skill-link').setAttribute('href', skillPagePath(slug));
  part('slug').textContent = slug;
  // The client this registry serves, which defaults to it (as the skill page's command).
  for (const el of document.querySelectorAll('[data-role=cli-package]')) el.textContent = `${location.origin}/cli/skillpress.tgz`;

  if (params.has('cancelled')) return say('Checkout cancelled', 'You left the checkout; nothing was charged.');
  if (!sessionId) return say('No purchase here', 'This page is where the checkout brings you back; it names no checkout.');
  for (let poll = 0; poll < POLLS; poll++) {
    let purchases: Purchase[];
    try {
      ({ purchases } = await api<{ purchases: Purchase[] }>('GET', '/api/me/purchases'));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401)
        return say('Sign in to see your purchase', 'Sign in on the dashboard with the account you bought with.');
      purchases = [];
    }
    const found = purchases.find((p) => p.sessionId === sessionId);
    if (found?.status === 'purchased') {
      part('install').hidden = false;
      return say('Paid — it is yours', `Payment received and access granted: you can install ${found.slug} now.`);
    }
    if (found?.status === 'refunded') return say('Refunded', `This purchase of ${found.slug} was refunded; your access has ended.`);
    if (found?.status === 'disputed')
      return say('Disputed', `The payment for ${found.slug} is disputed with your bank; access is paused until the dispute is settled.`);
    if (poll === 0) say('Payment pending', 'Stripe has taken the payment; waiting for its confirmation to reach Skillpress. This page updates by itself.');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  say(
    'Payment pending',
    'Stripe has not confirmed the payment to Skillpress yet. It will appear on your dashboard once it does; you were charged only if Stripe said so.',
  );
}
