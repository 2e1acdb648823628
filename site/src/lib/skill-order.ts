import { type InstallsDocument, installsOf } from '#core/public-installs';
import { categoryPagePath } from '#core/static-paths';

/**
 * The orders a list of skills is shown in. Every one is a set of static pages (no server sorts
 * anything, and it works without JavaScript): a category's pages by name at
 * `/categories/<category>/`, by popularity at `…/popular/`, by last update at `…/recent/`, each
 * paginated as `…/2/`.
 */
export type SkillOrder = 'name' | 'popular' | 'recent';

export const SKILL_ORDERS: readonly { order: SkillOrder; label: string; segment: string }[] = [
  { order: 'name', label: 'Name', segment: '' },
  { order: 'popular', label: 'Popular', segment: 'popular' },
  { order: 'recent', label: 'Recently updated', segment: 'recent' },
];

export interface OrderableSkill {
  slug: string;
  name: string;
  updatedAt: string;
}

const byName = (a: OrderableSkill, b: OrderableSkill) => a.name.localeCompare(b.name, 'en') || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);

/**
 * `skills` in `order`, as a new array. Popular: most installs in the last 30 days first, then
 * most installs in all (a skill that was popular and is resting still ranks above one nobody
 * installs), then by name. Recently updated: newest `updatedAt` first, then by name.
 */
export function sortSkills<T extends OrderableSkill>(skills: readonly T[], order: SkillOrder, installs?: InstallsDocument): T[] {
  const sorted = [...skills];
  if (order === 'name') return sorted.sort(byName);
  if (order === 'recent') return sorted.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : byName(a, b)));
  const counts = new Map(sorted.map((s) => [s.slug, installsOf(installs, s.slug)]));
  return sorted.sort((a, b) => {
    const x = counts.get(a.slug)!;
    const y = counts.get(b.slug)!;
    return y.last30d - x.last30d || y.total - x.total || byName(a, b);
  });
}

/** One static page of a category in one order. */
export interface CategoryPage<T> {
  /** The rest of the path after `/categories/<category>/`: `undefined`, `2`, `popular`, `popular/2`… */
  rest: string | undefined;
  order: SkillOrder;
  skills: T[];
  /** 1-based. */
  number: number;
  last: number;
  prev?: string;
  next?: string;
}

/** The page at `number` (1-based) of `category` in `order`. */
export function categoryOrderPath(category: string, order: SkillOrder, number = 1): string {
  const segment = SKILL_ORDERS.find((o) => o.order === order)!.segment;
  return `${categoryPagePath(category)}${segment ? `${segment}/` : ''}${number > 1 ? `${number}/` : ''}`;
}

/** Every page of a category: each order, `pageSize` skills to a page (at least one page, even empty). */
export function categoryPages<T extends OrderableSkill>(
  category: string,
  skills: readonly T[],
  pageSize: number,
  installs?: InstallsDocument,
): CategoryPage<T>[] {
  return SKILL_ORDERS.flatMap(({ order, segment }) => {
    const sorted = sortSkills(skills, order, installs);
    const last = Math.max(1, Math.ceil(sorted.length / pageSize));
    return Array.from({ length: last }, (_, i): CategoryPage<T> => {
      const number = i + 1;
      const rest = [segment, number > 1 ? String(number) : ''].filter(Boolean).join('/') || undefined;
      return {
        rest,
        order,
        skills: sorted.slice(i * pageSize, number * pageSize),
        number,
        last,
        ...(number > 1 ? { prev: categoryOrderPath(category, order, number - 1) } : {}),
        ...(number < last ? { next: categoryOrderPath(category, order, number + 1) } : {}),
      };
    });
  });
}

/**
 * Each skill installed in the last 7 days, by its place among them (1: the most installed that
 * week; ties go to the most installs in all, then the slug), as skills.sh ranks its pages. A
 * skill not installed that week has no place.
 */
export function weeklyRanks(installs: InstallsDocument | undefined): Map<string, number> {
  const week = Object.entries(installs?.skills ?? {}).filter(([, counts]) => counts.last7d > 0);
  week.sort(([a, x], [b, y]) => y.last7d - x.last7d || y.total - x.total || (a < b ? -1 : a > b ? 1 : 0));
  return new Map(week.map(([slug], i) => [slug, i + 1]));
}
