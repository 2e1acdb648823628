import { isAdmin } from '#core/moderation';
import { signInDev, signOut } from '../../services/sign-in.ts';
import { clearSessionCookie, sessionToken, setSessionCookie } from '../auth.ts';
import type { RouteGroup } from '../env.ts';
import { checkOrigin } from '../site-origin.ts';
import { signInOperations as op } from '../operations/sign-in.ts';
import { route } from '../route.ts';

/** Sign-in, the current user and sign-out (docs/api.md). GitHub sign-in is in github-sign-in.ts. */
export const signInRoutes: RouteGroup = (app) => {
  route(app, op.devLogin, async (c, { body }) => {
    // It signs in as anyone: only the site itself may ask (a 404 first where it is off).
    if (c.var.deps.config.devLogin) checkOrigin(c);
    const { user, session } = await signInDev(c.var.deps, body.login);
    setSessionCookie(c, session.token, session.expiresAt);
    return c.json({ user }, 200);
  });

  // Which sign-in forms the dashboard offers; GitHub's is always offered.
  route(app, op.signInMethods, (c) => c.json({ devLogin: c.var.deps.config.devLogin }, 200));

  route(app, op.me, (c, { caller }) => c.json({ user: caller.user, admin: isAdmin(caller.user.login, c.var.deps.config.admins) }, 200));

  route(app, op.signOut, async (c) => {
    await signOut(c.var.deps, sessionToken(c)!);
    clearSessionCookie(c);
    return c.body(null, 204);
  });
};
