import type { Context } from 'hono';
import type { ClientFacts } from '#core/install-visitor';
import type { AppEnv } from './env.ts';

/**
 * The client of a request as distinct installs count it (core/install-visitor.ts): the address of
 * the connection and the user agent. The address is never taken from a header the client sets:
 * - under Node (`npm start`), the socket's peer;
 * - on AWS, the request came through CloudFront to API Gateway, whose own `sourceIp` is an edge
 *   server's, so the address is the `x-skillpress-viewer` header that a CloudFront Function writes
 *   from the viewer's connection, over anything the viewer sent (infra/cloudfront/viewer-address.js)
 *   — but only when the request carries the edge's secret origin header, proof it came through
 *   CloudFront; a request sent to API Gateway directly is its own `sourceIp`.
 * Anything else (the tests' `app.request()` without an environment) has no address: all such
 * requests are one client.
 */
export function clientFacts(c: Context<AppEnv>): ClientFacts {
  const userAgent = c.req.header('user-agent');
  const env = c.env as (LambdaEnv & NodeEnv) | undefined;
  const socket = env?.incoming?.socket?.remoteAddress;
  if (socket) return { address: socket, userAgent };
  const context = env?.event?.requestContext?.http;
  if (!context) return { userAgent };
  const edgeSecret = c.var.deps.config.edgeSecret;
  const viewer = c.req.header(VIEWER_HEADER);
  if (edgeSecret && viewer && c.req.header(EDGE_SECRET_HEADER) === edgeSecret) return { address: viewer, userAgent };
  return { address: context.sourceIp, userAgent };
}

/** The origin header CloudFront adds to every request it sends to the API (infra/stack.ts). */
export const EDGE_SECRET_HEADER = 'x-skillpress-edge';
/** The viewer's address, as the edge function wrote it. */
const VIEWER_HEADER = 'x-skillpress-viewer';

interface NodeEnv {
  incoming?: { socket?: { remoteAddress?: string } };
}
interface LambdaEnv {
  event?: { requestContext?: { http?: { sourceIp?: string } } };
}
