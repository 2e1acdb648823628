import { clawhubUser, clawhubWellKnown } from '#core/clawhub-documents';
import { DomainError } from '#core/errors';
import { clientFacts } from '../client.ts';
import { clawhubSearch, listSkills, resolveVersion, skillFileText, skillPage, versionList, versionPage } from '../../services/clawhub.ts';
import { downloadZip } from '../../services/clawhub-download.ts';
import type { RouteGroup } from '../env.ts';
import { clawhubOperations as op, clawhubUnsupportedOperations as unsupported } from '../operations/clawhub.ts';
import { largeDeliveryAnswer } from '../large-delivery.ts';
import { route } from '../route.ts';

/** The ClawHub-compatible reads (docs/api.md §14), and the ClawHub endpoints that have no counterpart here. */
export const clawhubRoutes: RouteGroup = (app) => {
  for (const operation of [op.clawhubWellKnown, op.clawhubWellKnownLegacy]) {
    route(app, operation, (c) => {
      const origin = c.var.deps.config.siteOrigin ?? new URL(c.req.url).origin;
      return c.json(clawhubWellKnown(origin), 200, { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' });
    });
  }

  route(app, op.clawhubWhoami, (c, { caller }) => c.json({ user: clawhubUser(caller.user) }, 200));

  route(app, op.clawhubSearch, async (c, { query }) => c.json(await clawhubSearch(c.var.deps, query), 200));

  route(app, op.clawhubListSkills, async (c, { query }) => c.json(await listSkills(c.var.deps, query), 200));

  route(app, op.clawhubGetSkill, async (c, { params, query }) => c.json(await skillPage(c.var.deps, params.slug, query.ownerHandle), 200));

  route(app, op.clawhubListVersions, async (c, { params, query }) => c.json(await versionList(c.var.deps, params.slug, query), 200));

  route(app, op.clawhubGetVersion, async (c, { params, query }) => c.json(await versionPage(c.var.deps, params.slug, params.version, query.ownerHandle), 200));

  route(app, op.clawhubGetFile, async (c, { params, query }) => {
    const text = await skillFileText(c.var.deps, params.slug, query);
    return c.body(text, 200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  });

  route(app, op.clawhubResolve, async (c, { query }) => c.json(await resolveVersion(c.var.deps, query.slug, query.hash, query.ownerHandle), 200));

  route(app, op.clawhubDownload, async (c, { query }) => {
    // Hono routes HEAD to GET handlers; a HEAD must not count as an install.
    const { slug, version, zip, large } = await downloadZip(c.var.deps, query, c.req.method !== 'HEAD', clientFacts(c));
    if (large) return largeDeliveryAnswer(c, large.location);
    return c.body(zip as Uint8Array<ArrayBuffer>, 200, {
      'Content-Type': 'application/zip',
      'Content-Disposition': `attachment; filename="${slug}-${version}.zip"`,
      // Counted, and possibly a version a later quarantine withdraws: no cache may keep it.
      'Cache-Control': 'private, no-store',
    });
  });

  const refuse = (why: string) => () => {
    throw new DomainError('not_supported', why);
  };
  route(app, unsupported.clawhubDeleteSkill, refuse('Skillpress keeps every published skill: there is no delete (a quarantine is for admins)'));
  route(app, unsupported.clawhubUndeleteSkill, refuse('Skillpress deletes no skill, so there is none to restore'));
  route(app, unsupported.clawhubStar, refuse('Skillpress has no stars'));
  route(app, unsupported.clawhubUnstar, refuse('Skillpress has no stars'));
};
