import { DomainError } from '#core/errors';
import { SESSION } from '#core/policy';
import type { User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { readSecret } from '../platform/secrets-manager.ts';
import { openCheckoutSession, StripeFailure } from '../platform/stripe.ts';
import { skillFor } from './authorization.ts';
import { standingOf } from './entitlement.ts';

/**
 * Buying a paid skill (docs/api.md §9.4): a Stripe Checkout Session for the skill at its price.
 * Nothing is stored here; the purchase is recorded when Stripe's webhook says the session was
 * paid (stripe-webhook.ts). Stripe sends the browser back to the site's `/purchase/` page.
 */
type CheckoutPorts = Pick<Deps, 'db' | 'config' | 'log'>;

/** Where the site's return page lives; Stripe fills in `{CHECKOUT_SESSION_ID}` itself. */
export const PURCHASE_PAGE = '/purchase/';

/**
 * Opens a Checkout Session for `buyer`. 503 `payments_unavailable` where Stripe is not configured
 * (checked before anything is read) or does not answer; 404 for no such skill; 403
 * `quarantined` for a quarantined one (it could not be delivered); 409
 * `not_for_sale` for a free skill or one without a price; 409 `already_entitled` for its author,
 * a granted user, or someone who bought it and was not refunded.
 */
export async function openCheckout(deps: CheckoutPorts, buyer: User, skillId: string, siteOrigin: string): Promise<{ url: string; sessionId: string }> {
  const secretKey = await readSecret(deps.config.stripe.secretKey, deps.config.region);
  if (!secretKey) throw paymentsUnavailable('Payments are not configured on this server (no STRIPE_SECRET_KEY); the author can still grant access');
  const { skill } = await skillFor(deps, { user: buyer, credential: SESSION }, skillId, 'skill.read');
  if (skill.quarantine) throw new DomainError('quarantined', `${skill.slug} is quarantined after reports or a scan; it cannot be bought`);
  if (!skill.paid) throw new DomainError('not_for_sale', `${skill.slug} is free: install it, no purchase needed`);
  if (!skill.price) throw new DomainError('not_for_sale', `${skill.slug} has no price yet, so it cannot be bought; its author has not put it on sale`);
  const standing = await standingOf(deps, skill, buyer);
  if (standing !== 'other')
    throw new DomainError('already_entitled', `You already have access to ${skill.slug} (${standing}); install it with skillpress install ${skill.slug}`);

  const back = `${siteOrigin}${PURCHASE_PAGE}?skill=${encodeURIComponent(skill.slug)}`;
  try {
    const session = await openCheckoutSession(secretKey, deps.config.stripe.apiBase, {
      skill,
      price: skill.price,
      buyer,
      // Not encoded: Stripe replaces this placeholder in the URL as written.
      successUrl: `${back}&session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${back}&cancelled=1`,
    });
    return { url: session.url, sessionId: session.id };
  } catch (error) {
    if (!(error instanceof StripeFailure)) throw error;
    deps.log.error('Stripe did not open a checkout', { skillId: skill.id, status: error.status, type: error.type, code: error.stripeCode });
    throw paymentsUnavailable('The payment provider could not open a checkout right now; try again in a minute');
  }
}

const paymentsUnavailable = (message: string) => new DomainError('payments_unavailable', message);
