import { operations } from '../operation.ts';

const answers =
  'HTML: 200 with the fallback page, or 404 with the site’s 404 page; Cache-Control as the page is stored. ' +
  'A 404 not_found (JSON) only when the bucket holds no site at all.';

/**
 * The pages served in place of site pages the last build did not make (docs/api.md §11.1). On
 * AWS, CloudFront asks these when the static bucket has no object for a page path (its failover
 * origin, infra/stack.ts); the local CDN answers the page paths themselves the same way.
 */
export const sitePageOperations = operations(
  {
    name: 'Site pages',
    description:
      'The page in place of a skill or author page newer than the last site build: the fallback page that draws it in the browser, ' +
      'or the 404 page for a skill the registry does not have. CloudFront’s failover origin for site paths.',
  },
  {
    skillPageInPlace: {
      method: 'get',
      path: '/api/pages/skills/{slug}/index.html',
      summary: 'The page for /skills/{slug}/ when the build made none: the skill fallback page if the registry has the skill, else the 404 page',
      description: `The fallback page's <noscript> link names the skill's registry document. ${answers}`,
      auth: 'none',
      success: { status: 200, description: 'The skill fallback page (text/html)' },
      errors: ['not_found'],
    },
    authorPageInPlace: {
      method: 'get',
      path: '/api/pages/authors/{login}/index.html',
      summary: 'The page for /authors/{login}/ when the build made none: the author fallback page',
      description: answers,
      auth: 'none',
      success: { status: 200, description: 'The author fallback page (text/html)' },
      errors: ['not_found'],
    },
  },
);
