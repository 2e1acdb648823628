import { devLoginBodySchema } from '#core/schemas';
import { signInDev, signOut } from '../../services/sign-in.ts';
import { clearSessionCookie, requireSession, sessionToken, setSessionCookie } from '../auth.ts';
import { readBody } from '../body.ts';
import type { RouteGroup } from '../env.ts';

/** Sign-in, the current user and sign-out (docs/api.md). GitHub sign-in is in github-sign-in.ts. */
export const signInRoutes: RouteGroup = (app) => {
  app.post('/api/auth/dev-login', async (c) => {
    const { login } = await readBody(c, devLoginBodySchema);
    const { user, session } = await signInDev(c.var.deps, login);
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
    await signOut(c.var.deps, sessionToken(c)!);
    clearSessionCookie(c);
    return c.body(null, 204);
  });
};
