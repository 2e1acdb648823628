import { notFound } from '#core/errors';
import { devLoginBodySchema } from '#core/schemas';
import { readBody } from '../body.ts';
import { clearSessionCookie, requireSession, sessionToken, setSessionCookie } from '../auth.ts';
import type { RouteGroup } from '../env.ts';
import { createSession, deleteSession } from '../../store/sessions.ts';
import { upsertUser } from '../../store/users.ts';

/** Sign-in, the current user and sign-out (DESIGN.md §3). GitHub sign-in lives in github-auth. */
export const authRoutes: RouteGroup = (app) => {
  app.post('/api/auth/dev-login', async (c) => {
    const { config, db, clock } = c.var.deps;
    if (!config.devLogin) throw notFound('Dev sign-in is disabled');
    const { login } = await readBody(c, devLoginBodySchema);
    const user = await upsertUser(db, { id: `dev:${login.toLowerCase()}`, login }, clock());
    const session = await createSession(db, user.id, clock());
    setSessionCookie(c, session.token, session.expiresAt);
    return c.json({ user });
  });

  // Which sign-in forms the dashboard offers; GitHub's is always offered.
  app.get('/api/auth/methods', (c) => c.json({ devLogin: c.var.deps.config.devLogin }));

  app.get('/api/me', async (c) => {
    const { user } = await requireSession(c);
    return c.json({ user });
  });

  app.post('/api/auth/logout', async (c) => {
    await requireSession(c);
    await deleteSession(c.var.deps.db, sessionToken(c)!);
    clearSessionCookie(c);
    return c.body(null, 204);
  });
};
