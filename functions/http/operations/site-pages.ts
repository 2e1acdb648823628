import { operations } from '../operation.ts';

/**
 * The page served in place of a site page the last build did not make (docs/api.md §11.1). On
 * AWS, CloudFront asks for it when the static bucket has no object for a page path (its failover
 * origin, infra/stack.ts); the local CDN answers the page paths themselves the same way.
 */
export const sitePageOperations = operations(
  {
    name: 'Site pages',
    description:
      'The page in place of one the last site build did not make: the fallback page of a skill or author newer than the build, ' +
      'or the 404 page. CloudFront’s failover origin for site paths.',
  },
  {
    pageInPlace: {
      method: 'get',
      path: '/api/pages/{path+}',
      summary: 'The page for /{path} when the build made none: a fallback page (200) or the 404 page (404), as HTML',
      description:
        '`skills/<slug>/index.html`: the skill fallback page, its <noscript> link naming the skill’s registry document, when the registry has the skill; ' +
        '`authors/<login>/index.html`: the author fallback page; anything else, an unknown skill included: the site’s 404 page with status 404. ' +
        'Cache-Control as the page is stored. A 404 not_found (JSON) only when the bucket holds no site at all.',
      auth: 'none',
      success: { status: 200, description: 'A fallback page (text/html)' },
      errors: ['not_found'],
    },
  },
);
