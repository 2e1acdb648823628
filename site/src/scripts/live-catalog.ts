import type { CatalogDocument, CatalogEntry } from '#core/catalog';
import { type InstallsDocument, installsOf } from '#core/public-installs';
import { CATALOG_KEY } from '#core/static-paths';
import { installsLabel, priceLabel } from '../lib/format.ts';
import { authorHref, skillHref } from '../lib/skill-links.ts';
import { publicInstalls } from './public-installs.ts';
import { getJson } from './registry.ts';

/**
 * The live catalog for lists made in the browser (search results, an author's skills): the
 * catalog the CLI reads too, revalidated rather than taken from the browser's cache, and the
 * public install counts beside it. The counts are a nicety: a list without them still works.
 */
export interface LiveCatalog {
  skills: CatalogEntry[];
  installs?: InstallsDocument;
}

export async function fetchLiveCatalog(): Promise<LiveCatalog> {
  const [catalog, installs] = await Promise.all([getJson<CatalogDocument>(`/${CATALOG_KEY}`, 'no-cache'), publicInstalls()]);
  if (!catalog) throw new Error('no catalog');
  return { skills: catalog.skills, installs };
}

/** What a card (components/SkillCard.astro) shows for `skill`, linked as `builtFrom` allows (skill-links.ts). */
export function cardModel(skill: CatalogEntry, builtFrom: string, installs?: InstallsDocument) {
  return {
    ...skill,
    href: skillHref(skill, builtFrom),
    authorHref: authorHref(skill, builtFrom),
    price: priceLabel(skill),
    priceClass: `badge ${skill.paid ? 'paid' : 'free'}`,
    installs: installs ? installsLabel(installsOf(installs, skill.slug)) : '',
  };
}
