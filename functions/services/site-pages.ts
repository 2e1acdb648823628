import { fallbackPageFor, headersForKey, pagesInPlaceOf } from '#core/static-paths';
import type { Deps } from '../platform/composition.ts';

export interface PageInPlaceAnswer {
  status: 200 | 404;
  html: string;
  /** The served page's own, as stored. */
  cacheControl: string;
}

/**
 * The page served for the site path `path` (`/skills/<slug>/`) when the last site build made no
 * page there, read from the static bucket as core/static-paths.ts `pagesInPlaceOf` orders it: a
 * skill's fallback page only when the registry has the skill, an author's fallback page, else the
 * 404 page. Only those keys are ever read, whatever the path. On AWS,
 * CloudFront asks for it when the bucket answers 404 for a page (docs/deploy.md); the local CDN
 * follows the same order over its cache. Undefined when the bucket holds no site at all.
 */
export async function pageInPlaceOf(deps: Pick<Deps, 'staticStore'>, path: string): Promise<PageInPlaceAnswer | undefined> {
  for (const choice of pagesInPlaceOf(path)) {
    const [page, present] = await Promise.all([deps.staticStore.get(choice.key), choice.requires ? deps.staticStore.metadata(choice.requires) : true]);
    if (!page || !present) continue;
    const html = Buffer.from(page).toString('utf8');
    return { status: choice.status, html: choice.slug ? fallbackPageFor(html, choice.slug) : html, cacheControl: headersForKey(choice.key).cacheControl };
  }
  return undefined;
}
