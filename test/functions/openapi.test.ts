import type { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { limits } from '#core/limits';
import { archiveKey, bundleKey, CATALOG_KEY, DISCOVERY_INDEX_KEY, keyForPath, registryKey, skillMdKey, versionsKey } from '#core/static-paths';
import { allRoutes } from '#functions/http/all-routes';
import { apiOperations, staticOperations } from '#functions/http/all-operations';
import { createApp } from '#functions/http/app';
import type { AppEnv, RouteGroup } from '#functions/http/env';
import { openApiDocument } from '#functions/http/openapi';
import type { Operation } from '#functions/http/operation';
import { createDeps } from '#functions/platform/composition';
import { configFromEnv } from '#functions/platform/config';
import { Client, createTestStack, json, ORIGIN, type TestStack } from '../support/stack.ts';

/**
 * The OpenAPI document is generated from the operation declarations that the routes are served
 * from: these tests hold the two together, so a route served without a declaration (or a
 * declaration nobody serves) fails here, and each declaration's derived errors are what the
 * app really answers.
 */

interface Document {
  paths: Record<string, Record<string, { responses: Record<string, unknown>; 'x-static'?: boolean }>>;
}
const doc = openApiDocument() as Document;

/** `GET /api/skills/{id}` for each route the app serves, as the document spells it. */
function served(app: Hono<AppEnv>): string[] {
  return app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:(\w+)(\{\.\+\})?/g, '{$1}')}`);
}

function documented(isStatic: boolean): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => Boolean(operation['x-static']) === isStatic)
      .map(([method]) => `${method.toUpperCase()} ${path}`),
  );
}

const appOf = (groups: RouteGroup[]) => createApp(createDeps(configFromEnv({})), groups);
const sorted = (list: string[]) => [...list].sort();

describe('the OpenAPI document and the routes', () => {
  it('documents exactly the routes the app serves, once each', () => {
    const routes = served(appOf(allRoutes));
    expect(new Set(routes).size).toBe(routes.length);
    expect(sorted(documented(false))).toEqual(sorted(routes));
  });

  it('would refuse a route served without a declaration', () => {
    const undeclared: RouteGroup = (app) => {
      app.get('/api/undeclared', (c) => c.json({}));
    };
    const routes = served(appOf([...allRoutes, undeclared]));
    expect(routes.filter((route) => !documented(false).includes(route))).toEqual(['GET /api/undeclared']);
  });

  it('gives every operation a unique operationId', () => {
    const ids = [...apiOperations, ...staticOperations].map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares every kind of static file the CDN serves, at the path it serves it from', () => {
    const sample: Record<string, string> = { slug: 'pretty-json', version: '1.2.0' };
    const keys = staticOperations.map((file) => {
      const path = file.path.replace(/\{(\w+)\}/g, (_, name: string) => sample[name]!);
      expect(keyForPath(path), path).toBe(file.key(sample));
      return file.key(sample);
    });
    expect(sorted(keys)).toEqual(
      sorted([
        registryKey('pretty-json'),
        versionsKey('pretty-json'),
        bundleKey('pretty-json', '1.2.0'),
        archiveKey('pretty-json', '1.2.0'),
        skillMdKey('pretty-json', '1.2.0'),
        CATALOG_KEY,
        DISCOVERY_INDEX_KEY,
      ]),
    );
    expect(sorted(documented(true))).toEqual(sorted(staticOperations.map((file) => `GET ${file.path}`)));
    // Static files are the CDN's, never the app's.
    expect(served(appOf(allRoutes)).filter((route) => documented(true).includes(route))).toEqual([]);
  });
});

describe('what route() enforces is what the document says', () => {
  let stack: TestStack;
  let alice: Client;
  let key: string;

  beforeAll(async () => {
    stack = await createTestStack();
    alice = await Client.signIn(stack, 'alice');
    key = await alice.createKey();
  });

  const pathOf = (operation: Operation) => operation.path.replace(/\{\w+\}/g, 'x');
  const statusesOf = (operation: Operation) => Object.keys(doc.paths[operation.path]![operation.method]!.responses);
  const isWrite = (operation: Operation) => operation.method !== 'get';
  const checked = apiOperations.filter((o) => o.auth === 'session' || o.auth === 'apiKey' || o.auth === 'sessionOrApiKey');

  /** A request with the credentials the operation takes, sent as text rather than JSON. */
  function asText(operation: Operation, credentials: Record<string, string>): Promise<Response> {
    return stack.request(pathOf(operation), { method: operation.method.toUpperCase(), headers: { 'content-type': 'text/plain', ...credentials }, body: '{}' });
  }
  function credentialsFor(operation: Operation): Record<string, string> {
    if (operation.auth === 'session') return { cookie: alice.cookie!, origin: ORIGIN };
    return operation.auth === 'none' ? {} : { authorization: `Bearer ${key}` };
  }

  it('asks for credentials before it reads the body', async () => {
    expect(checked.length).toBeGreaterThan(10);
    for (const operation of checked) {
      const res = isWrite(operation) ? await asText(operation, {}) : await stack.request(pathOf(operation));
      expect(res.status, operation.id).toBe(401);
      expect(await codeOf(res)).toBe('unauthenticated');
      expect(statusesOf(operation), operation.id).toContain('401');
    }
  });

  it('applies the Origin rule to session writes before it reads the body', async () => {
    const sessionWrites = apiOperations.filter((o) => isWrite(o) && (o.auth === 'session' || o.auth === 'sessionOrApiKey'));
    expect(sessionWrites.length).toBeGreaterThan(5);
    for (const operation of sessionWrites) {
      const res = await asText(operation, { cookie: alice.cookie! });
      expect(await codeOf(res), operation.id).toBe('csrf_rejected');
      expect(statusesOf(operation), operation.id).toContain('403');
    }
  });

  it('refuses a body that is not JSON with 415, and an unknown field with 400', async () => {
    const withBody = apiOperations.filter((o) => o.body);
    expect(withBody.length).toBeGreaterThan(5);
    for (const operation of withBody) {
      const credentials = credentialsFor(operation);
      const text = await asText(operation, credentials);
      expect(text.status, operation.id).toBe(415);
      expect(await codeOf(text)).toBe('unsupported_media_type');
      const unknown = await stack.request(pathOf(operation), {
        method: operation.method.toUpperCase(),
        headers: { 'content-type': 'application/json', ...credentials },
        body: JSON.stringify({ notAField: 1 }),
      });
      expect(unknown.status, operation.id).toBe(400);
      expect(statusesOf(operation), operation.id).toEqual(expect.arrayContaining(['400', '415']));
    }
  });

  it('refuses a body over the limit on every write with 413, before anything else', async () => {
    const huge = 'x'.repeat(limits.bodyBytes + 1);
    for (const operation of apiOperations.filter(isWrite)) {
      const res = await stack.request(pathOf(operation), {
        method: operation.method.toUpperCase(),
        headers: { 'content-type': 'application/json' },
        body: huge,
      });
      expect(res.status, operation.id).toBe(413);
      expect(statusesOf(operation), operation.id).toContain('413');
    }
  });

  it('refuses a repeated query parameter with 400', async () => {
    const withQuery = apiOperations.filter((o) => o.query);
    expect(withQuery.length).toBeGreaterThan(0);
    for (const operation of withQuery) {
      const [name] = Object.keys(operation.query!.shape);
      // With the credentials it takes: they are checked before the query.
      const res = await stack.request(`${pathOf(operation)}?${name}=a&${name}=a`, {
        method: operation.method.toUpperCase(),
        headers: credentialsFor(operation),
      });
      expect(res.status, operation.id).toBe(400);
      expect(statusesOf(operation), operation.id).toContain('400');
    }
  });
});

/** An error's code: in the JSON body, or (ClawHub's API, whose errors are text) in X-Error-Code. */
async function codeOf(res: Response): Promise<string | null> {
  return res.headers.get('x-error-code') ?? (await json(res)).error.code;
}
