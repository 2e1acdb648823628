import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * An API Gateway HTTP API event (payload format 2.0) as API Gateway sends it to a Lambda behind
 * CloudFront: lower-case headers, cookies split out of the headers, the raw path and query, and
 * a request context naming the API's own execute-api domain.
 */
export interface EventInit {
  routeKey?: string;
  headers?: Record<string, string>;
  cookies?: string[];
  query?: Record<string, string>;
  pathParameters?: Record<string, string>;
  body?: unknown;
  /** Send the body base64-encoded, as API Gateway does for some content types. */
  base64?: boolean;
}

const apiId = 'a1b2c3d4e5';
const domainName = `${apiId}.execute-api.eu-west-1.amazonaws.com`;

export function httpApiEvent(method: string, path: string, init: EventInit = {}): APIGatewayProxyEventV2 {
  const rawQueryString = new URLSearchParams(init.query ?? {}).toString();
  const text = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  const now = new Date();
  const userAgent = 'skillpress-test/1.0';
  return {
    version: '2.0',
    routeKey: init.routeKey ?? `${method} ${path}`,
    rawPath: path,
    rawQueryString,
    ...(init.cookies?.length ? { cookies: init.cookies } : {}),
    headers: {
      host: domainName,
      'user-agent': userAgent,
      'x-amzn-trace-id': `Root=1-${Math.floor(now.getTime() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      'x-forwarded-for': '203.0.113.7, 130.176.0.1',
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
      via: '2.0 0123456789abcdef.cloudfront.net (CloudFront)',
      ...(text !== undefined ? { 'content-length': String(Buffer.byteLength(text)) } : {}),
      ...init.headers,
    },
    ...(rawQueryString ? { queryStringParameters: init.query } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId,
      domainName,
      domainPrefix: apiId,
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '130.176.0.1', userAgent },
      requestId: randomUUID(),
      routeKey: init.routeKey ?? `${method} ${path}`,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(init.pathParameters ? { pathParameters: init.pathParameters } : {}),
    ...(text !== undefined ? { body: init.base64 ? Buffer.from(text).toString('base64') : text } : {}),
    isBase64Encoded: Boolean(init.base64 && text !== undefined),
  };
}

/** `{id}` placeholders of a route key filled in, for calling a route without real ids. */
export function routeEvent(routeKey: string, headers: Record<string, string> = {}): APIGatewayProxyEventV2 {
  const [method, template] = routeKey.split(' ') as [string, string];
  const params: Record<string, string> = {};
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => (params[name] = `unknown-${name}`));
  return httpApiEvent(method, path, { routeKey, headers, ...(Object.keys(params).length ? { pathParameters: params } : {}) });
}
