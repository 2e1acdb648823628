import type Stripe from 'stripe';
import { invalidRequest } from '#core/errors';
import { type Price, toStripeAmount } from '#core/price';

/**
 * Stripe, through the official SDK: opening Checkout Sessions and verifying webhook signatures.
 * Nothing above this file imports `stripe`; its errors leave here as {@link StripeFailure},
 * which carries the HTTP status and Stripe's error type and code but never a request, a key or
 * Stripe's message. `apiBase` points the SDK at a fake Stripe on loopback in tests
 * (docs/architecture.md, "Production parts and local stand-ins"). The SDK is loaded on first use,
 * so the Lambdas that never take a payment, and cold starts of those that do, do not pay for it.
 */

/** A failure talking to Stripe, safe to log. */
export class StripeFailure extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly stripeCode: string | undefined,
  ) {
    super(`Stripe answered ${status || 'nothing'} (${type}${stripeCode ? `, ${stripeCode}` : ''})`);
    this.name = 'StripeFailure';
  }
}

let sdk: Promise<typeof Stripe> | undefined;
const loadSdk = () => (sdk ??= import('stripe').then((module) => module.default));

const clients = new Map<string, Stripe>();

/** One SDK client per key and API base, made on first use and kept for the process. */
async function stripeClient(secretKey: string, apiBase: string | undefined): Promise<Stripe> {
  const id = `${apiBase ?? ''} ${secretKey}`;
  let client = clients.get(id);
  if (!client) {
    const base = apiBase ? new URL(apiBase) : undefined;
    const StripeSdk = await loadSdk();
    client = new StripeSdk(secretKey, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      telemetry: false,
      ...(base
        ? { host: base.hostname, port: base.port || (base.protocol === 'https:' ? 443 : 80), protocol: base.protocol === 'https:' ? 'https' : 'http' }
        : {}),
    });
    clients.set(id, client);
  }
  return client;
}

export interface CheckoutRequest {
  skill: { id: string; slug: string; name: string; description: string };
  price: Price;
  buyer: { id: string; login: string };
  successUrl: string;
  cancelUrl: string;
}

/** The Checkout Session metadata that the webhook turns back into a purchase. */
export const CHECKOUT_METADATA_KEYS = ['skillId', 'slug', 'userId', 'login'] as const;

/**
 * Opens a Checkout Session (mode payment) for one skill at its price. The buyer's user id is the
 * session's `client_reference_id`; the session and its PaymentIntent carry the skill and buyer
 * as metadata, so the webhook needs no other lookup and Stripe's dashboard names the skill.
 */
export async function openCheckoutSession(secretKey: string, apiBase: string | undefined, request: CheckoutRequest): Promise<{ id: string; url: string }> {
  const { skill, price, buyer } = request;
  const metadata: Record<(typeof CHECKOUT_METADATA_KEYS)[number], string> = { skillId: skill.id, slug: skill.slug, userId: buyer.id, login: buyer.login };
  let session: Stripe.Checkout.Session;
  try {
    session = await (await stripeClient(secretKey, apiBase)).checkout.sessions.create({
      mode: 'payment',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: price.currency.toLowerCase(),
            unit_amount: toStripeAmount(price),
            product_data: { name: skill.name, description: skill.description.slice(0, 500), metadata: { skillId: skill.id } },
          },
        },
      ],
      client_reference_id: buyer.id,
      metadata,
      payment_intent_data: { metadata },
      success_url: request.successUrl,
      cancel_url: request.cancelUrl,
    });
  } catch (error) {
    throw failureOf(error);
  }
  if (!session.url) throw new StripeFailure(200, 'no_url', undefined);
  return { id: session.id, url: session.url };
}

/** A verified webhook event: its id, its type, and the object it is about (still to be parsed). */
export interface StripeEvent {
  id: string;
  type: string;
  object: unknown;
}

/**
 * Verifies a webhook's `Stripe-Signature` over the raw body with the endpoint's signing secret
 * (and the SDK's 5-minute tolerance, measured against `now`), then parses it. A bad, stale or
 * missing signature is a 400 that says so without echoing anything.
 */
export async function verifiedEvent(payload: Uint8Array, signature: string, secret: string, now: Date): Promise<StripeEvent> {
  const StripeSdk = await loadSdk();
  let event: Stripe.Event;
  try {
    event = StripeSdk.webhooks.constructEvent(Buffer.from(payload), signature, secret, undefined, undefined, now.getTime());
  } catch (error) {
    const stale = error instanceof Error && /tolerance/i.test(error.message);
    throw invalidRequest(stale ? 'The Stripe-Signature timestamp is too old' : 'The Stripe-Signature does not match the body; nothing was changed');
  }
  return { id: event.id, type: event.type, object: event.data.object };
}

function failureOf(error: unknown): StripeFailure {
  const e = error as { statusCode?: number; type?: string; code?: string } | null;
  return new StripeFailure(typeof e?.statusCode === 'number' ? e.statusCode : 0, typeof e?.type === 'string' ? e.type : 'unknown', e?.code);
}
