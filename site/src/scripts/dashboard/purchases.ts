import { skillPagePath } from '#core/static-paths';
import { formatPrice, formatTimestamp } from '../../lib/format.ts';
import { renderList } from '../fill.ts';
import { api } from './api.ts';

/** The signed-in user's purchases: what they bought, what they paid, and whether it was refunded. */
interface Purchase {
  slug: string;
  amount: number;
  currency: string;
  status: 'purchased' | 'refunded' | 'disputed';
  purchasedAt: string;
  refundedAt: string | null;
}

export function wirePurchases(root: HTMLElement): { refresh(): Promise<void> } {
  const part = (role: string) => root.querySelector<HTMLElement>(`[data-role="${role}"]`)!;
  const refresh = async () => {
    const { purchases } = await api<{ purchases: Purchase[] }>('GET', '/api/me/purchases');
    renderList(
      root,
      'purchases',
      purchases.map((p) => ({
        slug: p.slug,
        href: skillPagePath(p.slug),
        paid: formatPrice(p),
        state:
          p.status === 'refunded'
            ? `Refunded ${formatTimestamp(p.refundedAt)}`
            : p.status === 'disputed'
              ? 'Payment disputed: access paused'
              : 'Yours to install',
        bought: formatTimestamp(p.purchasedAt),
      })),
    );
    part('purchases-table').hidden = purchases.length === 0;
    part('no-purchases').hidden = purchases.length > 0;
  };
  return { refresh };
}
