import { openCheckout } from '../../services/checkout.ts';
import { purchasesOf, salesOf } from '../../services/purchases.ts';
import type { RouteGroup } from '../env.ts';
import { requireSiteOrigin } from '../site-origin.ts';
import { purchaseOperations as op } from '../operations/purchases.ts';
import { route } from '../route.ts';

/** Buying a paid skill (a signed-in browser), a buyer's purchases and an author's sales. */
export const purchaseRoutes: RouteGroup = (app) => {
  route(app, op.openCheckout, async (c, { caller, params }) => {
    // Stripe sends the browser back to the site (the session's Origin was checked against it).
    return c.json(await openCheckout(c.var.deps, caller.user, params.id, requireSiteOrigin(c)), 201);
  });

  route(app, op.myPurchases, async (c, { caller }) => c.json({ purchases: await purchasesOf(c.var.deps, caller.user) }, 200));

  route(app, op.skillSales, async (c, { caller, params }) => c.json(await salesOf(c.var.deps, caller, params.id), 200));
};
