import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { notFound, payloadTooLarge } from '#core/errors';
import { limits } from '#core/limits';
import { securityHeadersFor } from '#core/security-headers';
import type { Deps } from '../platform/composition.ts';
import { recordKeyUseIfAccepted } from './auth.ts';
import type { AppEnv, RouteGroup } from './env.ts';
import { domainErrorResponse, errorResponse } from './errors.ts';

/**
 * The HTTP application: the same Hono app runs in every Lambda (with the route groups of its
 * concern), under `npm start` (with all of them) and in tests through `app.request()`.
 */
export function createApp(deps: Deps, groups: RouteGroup[]): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    c.set('deps', deps);
    const started = performance.now();
    await next();
    await recordKeyUseIfAccepted(c);
    if (!c.get('headersComplete')) {
      setSecurityHeaders(c.res.headers);
      if (c.req.path.startsWith('/api/') && !c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
    }
    // Path only: query strings can carry download tokens.
    deps.log.debug('request', { method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) });
  });

  const limitBody = bodyLimit({
    maxSize: limits.bodyBytes,
    onError: () => {
      throw payloadTooLarge(`The request body is over ${limits.bodyBytes} bytes`);
    },
  });
  // Reads carry no body. Skipping them matters: looking for one (`c.req.raw.body`) makes the
  // Node adapter build a full fetch Request with an AbortController for every GET, which cost
  // a sixth of the CPU of serving a registry read.
  app.use('/api/*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));

  for (const group of groups) group(app);

  app.notFound((c) => domainErrorResponse(c, notFound('No such route')));
  app.onError((error, c) => errorResponse(error, c, deps.log));
  return app;
}

function setSecurityHeaders(headers: Headers): void {
  for (const [name, value] of Object.entries(securityHeadersFor(headers.get('content-type')))) headers.set(name, value);
}
