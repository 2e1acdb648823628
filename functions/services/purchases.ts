import { salesSummary } from '#core/sales';
import type { User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { listPurchasesOf, listSales, type PurchaseItem } from '../store/purchases.ts';
import { type Principal, skillFor } from './authorization.ts';

/** Purchases as their buyer sees them, and sales as the skill's author sees them (docs/api.md §9.5). */
type PurchasePorts = Pick<Deps, 'db' | 'config'>;

/** How many individual sales the author's answer lists; the totals count them all. */
const SALES_LISTED = 100;

const newestFirst = (a: PurchaseItem, b: PurchaseItem) => (a.purchasedAt < b.purchasedAt ? 1 : a.purchasedAt > b.purchasedAt ? -1 : 0);

/** The signed-in user's purchases, newest first, refunded ones included. */
export async function purchasesOf({ db }: PurchasePorts, buyer: User) {
  const purchases = (await listPurchasesOf(db, buyer.id)).sort(newestFirst);
  return purchases.map(({ skillId, slug, amount, currency, status, sessionId, purchasedAt, refundedAt }) => ({
    skillId,
    slug,
    amount,
    currency,
    status,
    sessionId,
    purchasedAt,
    refundedAt,
  }));
}

/** The skill's sales for its author: counts, money per currency, and the most recent sales. */
export async function salesOf(deps: PurchasePorts, principal: Principal, skillId: string) {
  const { db } = deps;
  const { skill } = await skillFor(deps, principal, skillId, 'skill.read_sales');
  const sales = (await listSales(db, skill.id)).sort(newestFirst);
  return {
    skillId: skill.id,
    ...salesSummary(sales),
    sales: sales
      .slice(0, SALES_LISTED)
      .map(({ login, amount, currency, status, purchasedAt, refundedAt }) => ({ login, amount, currency, status, purchasedAt, refundedAt })),
  };
}
