import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { DomainError } from '#core/errors';
import { CLAWHUB_DISCOVERY_PATHS } from '#core/static-paths';
import { domainErrorAnswer } from '../../functions/http/errors.ts';
import { type LocalCdn, queryOf } from './cdn.ts';

/** What the server needs of the CDN. */
type Cdn = Pick<LocalCdn, 'answer'>;

/**
 * Serves the HTTP app on Node, as `npm start` and the benchmarks run it. Requests that Node
 * refuses before the app sees them (headers or URL over its limit, a malformed request line)
 * still get the contract's JSON error shape instead of Node's bare status line.
 *
 * With a CDN, a GET or HEAD of a plain path that is not the API's goes to it first, as
 * CloudFront answers the static bucket before API Gateway is involved: no fetch Request, no
 * Hono context. Every other request goes to the app, whose routes hand what is left of the
 * static paths (request targets that need normalising) to the same CDN.
 */
export async function serveApp(
  fetch: (request: Request) => Response | Promise<Response>,
  hostname: string,
  port: number,
  cdn?: Cdn,
): Promise<{ server: Server; port: number }> {
  const app = getRequestListener(fetch, { hostname });
  const server = createServer(
    cdn
      ? (req, res) => {
          const path = cdnPath(req);
          if (path === undefined) app(req, res);
          else answerFromCdn(cdn, path, req, res, app);
        }
      : app,
  );
  // Longer than clients' idle pools, so a reused connection is never closed under a request.
  server.keepAliveTimeout = 65_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    socket.end(rawErrorResponse(clientErrorOf(error)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(port, hostname);
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * Request targets that are already what the app would route: a path of unreserved characters
 * with no dot segments, and any query. Anything else (percent-escapes, `/./`, absolute form)
 * goes through the app, whose adapter normalises it first.
 */
const PLAIN_TARGET = /^(\/[A-Za-z0-9._~/+-]*)(?:\?.*)?$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/** The path of a GET or HEAD the CDN answers before the app, else undefined. */
function cdnPath(req: IncomingMessage): string | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') return undefined;
  const path = PLAIN_TARGET.exec(req.url ?? '')?.[1];
  if (!path || DOT_SEGMENT.test(path)) return undefined;
  if (path.startsWith('/api/') && !path.startsWith('/api/registry/')) return undefined;
  // The API answers these, as CloudFront sends them to it.
  return (CLAWHUB_DISCOVERY_PATHS as readonly string[]).includes(path) ? undefined : path;
}

function answerFromCdn(cdn: Cdn, path: string, req: IncomingMessage, res: ServerResponse, app: (req: IncomingMessage, res: ServerResponse) => unknown): void {
  const accept = req.headers['accept-encoding'];
  const ifNoneMatch = req.headers['if-none-match'];
  const address = req.socket.remoteAddress;
  cdn.answer({ method: req.method!, path, ...queryOf(req.url ?? ''), acceptEncoding: accept, ifNoneMatch, address, headers: () => req.headers }).then(
    (answer) => {
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    },
    // A read of the bucket failed: the app's route asks again, and maps and logs a second failure.
    () => app(req, res),
  );
}

/** The domain error for a request Node's parser refused. */
export function clientErrorOf(error: NodeJS.ErrnoException): DomainError {
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return new DomainError('headers_too_large', 'The request line and headers are over the server limit (16 KiB); send a shorter URL or fewer cookies');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new DomainError('request_timeout', 'The request did not arrive in time');
  return new DomainError('invalid_request', 'The request is not valid HTTP/1.1');
}

/** A whole HTTP/1.1 response carrying `error` in the contract's shape; the connection closes after it. */
function rawErrorResponse(error: DomainError): string {
  const { status, headers, body } = domainErrorAnswer(error);
  return [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };
