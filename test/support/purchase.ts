import { expect } from 'vitest';
import type { FakeStripe, StripeEventBody } from './fake-stripe.ts';
import { type Client, json, type TestStack } from './stack.ts';

/** Steps of buying a paid skill against a test stack whose payments point at a fake Stripe. */

/** Delivers a webhook event to the stack as Stripe does: the raw JSON with its Stripe-Signature. */
export function sendWebhook(stack: TestStack, stripe: FakeStripe, event: StripeEventBody, secret?: string): Promise<Response> {
  const { payload, signature } = stripe.sign(event, secret);
  return stack.request('/api/stripe/webhook', {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
    body: payload,
  });
}

/** `POST /api/skills/<id>/checkout` as `buyer`, expecting 201; the session Stripe made for it. */
export async function openCheckout(stripe: FakeStripe, buyer: Client, skillId: string) {
  const res = await buyer.session(`/api/skills/${skillId}/checkout`, { method: 'POST' });
  expect(res.status, await res.clone().text()).toBe(201);
  const { url, sessionId } = await json<{ url: string; sessionId: string }>(res);
  const session = stripe.sessions.get(sessionId)!;
  expect(session.url).toBe(url);
  return session;
}

/**
 * Buys a skill the whole way: checkout, the buyer paying on Stripe's page (which the fake answers
 * with a redirect to the site's return page), and Stripe's signed `checkout.session.completed`
 * delivered to the webhook. Returns the session and where the buyer's browser was sent.
 */
export async function buy(stack: TestStack, stripe: FakeStripe, buyer: Client, skillId: string) {
  const session = await openCheckout(stripe, buyer, skillId);
  const delivered: Response[] = [];
  stripe.onPaid = async (event) => {
    delivered.push(await sendWebhook(stack, stripe, event));
  };
  const page = await fetch(session.url!, { redirect: 'manual' });
  stripe.onPaid = undefined;
  expect(page.status).toBe(303);
  expect(delivered.map((r) => r.status)).toEqual([200]);
  expect(await delivered[0]!.json()).toEqual({ received: true, outcome: 'granted' });
  return { session, returnedTo: page.headers.get('location')! };
}
