import { notFound } from '#core/errors';
import { downloadTokenBodySchema, grantBodySchema } from '#core/schemas';
import { authoredSkill } from '../../services/authorship.ts';
import { requireSessionOrApiKey } from '../auth.ts';
import { readBody } from '../body.ts';
import type { RouteGroup } from '../env.ts';
import { createDownloadToken, listDownloadTokens, revokeDownloadToken } from '../../store/download-tokens.ts';
import { listGrants, putGrant, revokeGrant } from '../../store/grants.ts';
import { findUserByLogin } from '../../store/users.ts';

/**
 * Paid access, managed by the skill's author with a session or an API key: download tokens
 * (shown once, stored hashed) and grants to other users' accounts (DESIGN.md §4).
 */
export const accessRoutes: RouteGroup = (app) => {
  app.post('/api/skills/:id/download-tokens', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    const { db, clock } = c.var.deps;
    const body = await readBody(c, downloadTokenBodySchema);
    const skill = await authoredSkill(db, c.req.param('id'), user, 'issue its download tokens');
    const created = await createDownloadToken(db, { skillId: skill.id, createdBy: user.id, ...body }, clock());
    return c.json(created, 201);
  });

  app.get('/api/skills/:id/download-tokens', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    const skill = await authoredSkill(c.var.deps.db, c.req.param('id'), user, 'list its download tokens');
    const tokens = await listDownloadTokens(c.var.deps.db, skill.id);
    tokens.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    return c.json({
      tokens: tokens.map((t) => ({
        id: t.id,
        createdAt: t.createdAt,
        expiresAt: new Date(t.expiresAt * 1000).toISOString(),
        maxUses: t.maxUses,
        uses: t.uses,
        lastUsedAt: t.lastUsedAt,
      })),
    });
  });

  app.delete('/api/skills/:id/download-tokens/:tokenId', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    const skill = await authoredSkill(c.var.deps.db, c.req.param('id'), user, 'revoke its download tokens');
    await revokeDownloadToken(c.var.deps.db, skill.id, c.req.param('tokenId'));
    return c.body(null, 204);
  });

  app.post('/api/skills/:id/grants', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    const { db, clock } = c.var.deps;
    const { login } = await readBody(c, grantBodySchema);
    const skill = await authoredSkill(db, c.req.param('id'), user, 'grant access to it');
    const grantee = await findUserByLogin(db, login);
    // Grants name an account, and an account exists once its owner has signed in.
    if (!grantee) throw notFound(`No user ${login}; they need to sign in once before they can be granted access`);
    const grant = await putGrant(db, { skillId: skill.id, userId: grantee.id, login: grantee.login, grantedBy: user.id, grantedAt: clock().toISOString() });
    return c.json({ skillId: grant.skillId, login: grant.login, grantedAt: grant.grantedAt }, 201);
  });

  app.get('/api/skills/:id/grants', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    const skill = await authoredSkill(c.var.deps.db, c.req.param('id'), user, 'list its grants');
    const grants = await listGrants(c.var.deps.db, skill.id);
    return c.json({ grants: grants.map(({ skillId, login, grantedAt }) => ({ skillId, login, grantedAt })) });
  });

  app.delete('/api/skills/:id/grants/:login', async (c) => {
    const { user } = await requireSessionOrApiKey(c);
    const skill = await authoredSkill(c.var.deps.db, c.req.param('id'), user, 'revoke its grants');
    await revokeGrant(c.var.deps.db, skill.id, c.req.param('login'));
    return c.body(null, 204);
  });
};
