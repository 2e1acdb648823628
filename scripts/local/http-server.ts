import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { DomainError, statusOf } from '#core/errors';

/**
 * Serves the HTTP app on Node, as `npm start` and the benchmarks run it. Requests that Node
 * refuses before the app sees them (headers or URL over its limit, a malformed request line)
 * still get the contract's JSON error shape instead of Node's bare status line.
 */
export async function serveApp(
  fetch: (request: Request) => Response | Promise<Response>,
  hostname: string,
  port: number,
): Promise<{ server: Server; port: number }> {
  const server = serve({ fetch, hostname, port }) as Server;
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
  });
  return { server, port: (server.address() as AddressInfo).port };
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
  const body = JSON.stringify({ error: { code: error.code, message: error.message } });
  const status = statusOf(error.code);
  return [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };
