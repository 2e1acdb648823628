import { checkoutCreatedSchema, purchaseListSchema, salesSchema } from '#core/schemas';
import { operations } from '../operation.ts';

/** Buying paid skills through Stripe Checkout, a buyer's purchases and an author's sales (docs/api.md §9.4, §9.5). */
export const purchaseOperations = operations(
  { name: 'Purchases', description: 'Buying paid skills with Stripe Checkout; purchases for buyers, sales for authors.' },
  {
    openCheckout: {
      method: 'post',
      path: '/api/skills/{id}/checkout',
      summary: 'Open a Stripe Checkout Session to buy a paid skill (session only)',
      description:
        'No body. Send the browser to `url`; Stripe sends it back to `/purchase/` on the site. The purchase is recorded when Stripe ' +
        "confirms the payment to the webhook. 403 quarantined: the skill is quarantined; 409 not_for_sale: free, or no price yet; 409 already_entitled: the caller's own skill, " +
        'granted, or already bought; 503 payments_unavailable: Stripe is not configured or not answering.',
      auth: 'session',
      success: { status: 201, description: 'Created', schema: checkoutCreatedSchema },
      errors: ['not_found', 'quarantined', 'not_for_sale', 'already_entitled', 'payments_unavailable'],
    },
    myPurchases: {
      method: 'get',
      path: '/api/me/purchases',
      summary: "The signed-in user's purchases, newest first, refunded ones included (session only)",
      auth: 'session',
      success: { status: 200, description: 'OK', schema: purchaseListSchema },
    },
    skillSales: {
      method: 'get',
      path: '/api/skills/{id}/sales',
      summary: "A paid skill's sales: count, refunds, gross and net per currency, recent sales (author only)",
      auth: 'sessionOrApiKey',
      success: { status: 200, description: 'OK', schema: salesSchema },
      errors: ['not_found', 'forbidden'],
    },
  },
);
