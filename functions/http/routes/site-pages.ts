import { notFound } from '#core/errors';
import { pageInPlaceOf } from '../../services/site-pages.ts';
import type { RouteGroup } from '../env.ts';
import { sitePageOperations as op } from '../operations/site-pages.ts';
import { route } from '../route.ts';

/** The page in place of a site page the last build did not make (CloudFront's failover origin for pages). */
export const sitePageRoutes: RouteGroup = (app) => {
  route(app, op.pageInPlace, async (c, { params }) => {
    // CloudFront asks for the object key its viewer function made of the page path: `skills/<slug>/index.html` for `/skills/<slug>/`.
    const page = await pageInPlaceOf(c.var.deps, `/${params.path.replace(/(^|\/)index\.html$/, '$1')}`);
    if (!page) throw notFound('No such page: the site has not been built');
    // The 404 page is the operation's documented 404; `route()` types only the success status.
    return c.body(page.html, page.status as 200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': page.cacheControl });
  });
};
