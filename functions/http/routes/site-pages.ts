import { notFound } from '#core/errors';
import { pageInPlaceOf } from '../../services/site-pages.ts';
import type { AppEnv, RouteGroup } from '../env.ts';
import { sitePageOperations as op } from '../operations/site-pages.ts';
import { route } from '../route.ts';
import type { Context } from 'hono';

/** The pages in place of site pages the last build did not make (CloudFront's failover origin for them). */
export const sitePageRoutes: RouteGroup = (app) => {
  const answer = async (c: Context<AppEnv>, path: string) => {
    const page = await pageInPlaceOf(c.var.deps, path);
    if (!page) throw notFound('No such page: the site has not been built');
    // The 404 page is the operation's documented 404; `route()` types only the success status.
    return c.body(page.html, page.status as 200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': page.cacheControl });
  };
  route(app, op.skillPageInPlace, (c, { params }) => answer(c, `/skills/${params.slug}/`));
  route(app, op.authorPageInPlace, (c, { params }) => answer(c, `/authors/${params.login}/`));
};
