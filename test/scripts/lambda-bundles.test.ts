import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { unzipSync } from 'fflate';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { blobKey } from '#functions/content/blobs';
import { objectExists } from '#functions/content/s3';
import { openApiDocument } from '#functions/http/openapi';
import { siteBuildLockKey } from '#functions/store/site-build-lock';
import { versionKey } from '#functions/store/keys';
import { CATALOG_INDEX_KEY, CATALOG_KEY, registryKey } from '#core/static-paths';
import { REQUIRE_BANNER } from '../../scripts/esm-bundle.mjs';
import { COLD_START_BUDGET_BYTES } from '#scripts/lambda-bundles';
import { bundleDir, lambdas } from '../../infra/lambdas.ts';
import { sha256Hex } from '#core/bundle';
import { httpApiEvent, routeEvent } from '../support/api-gateway-event.ts';
import { type FakeGitHub, fakeGitHubEnv, startFakeGitHub } from '#scripts/local/fake-github';
import { type FakeStripe, fakeStripeEnv, startFakeStripe } from '../support/fake-stripe.ts';
import { invokeBundle, resultOf } from '../support/lambda-bundle.ts';
import { scheduledEvent, streamRecord } from '../support/lambda-events.ts';
import { Client, createTestStack, renamedSkillMd, skillFile, type TestStack, withKey } from '../support/stack.ts';
import { plantFault, UNSTORABLE_VERSION } from '../support/unbuildable-skill.ts';
import { MALICIOUS_SKILL_MD } from '../support/scan-samples.ts';

/**
 * Every Lambda bundle, as built by `npm run build`, imported in a fresh Node process and invoked
 * with real-shaped API Gateway v2 events against the embedded DynamoDB and S3.
 */
const SITE = 'https://skillpress.example';

let stack: TestStack;
let github: FakeGitHub;
let stripe: FakeStripe;
let env: Record<string, string>;
let cookie: string;
let key: string;

beforeAll(async () => {
  stack = await createTestStack();
  github = await startFakeGitHub();
  stripe = await startFakeStripe();
  const { dynamoEndpoint, s3Endpoint } = inject('services');
  env = {
    AWS_REGION: 'eu-west-1',
    LOG_LEVEL: 'silent',
    TABLE_NAME: stack.config.tableName,
    CONTENT_BUCKET: stack.config.contentBucket,
    STATIC_BUCKET: stack.config.staticBucket,
    DYNAMODB_ENDPOINT: dynamoEndpoint,
    S3_ENDPOINT: s3Endpoint,
    SITE_ORIGIN: SITE,
    SKILLPRESS_DEV_LOGIN: '1',
    ...fakeGitHubEnv(github),
    ...fakeStripeEnv(stripe),
  };
  const alice = await Client.signIn(stack, 'alice');
  cookie = alice.cookie!;
  key = await alice.createKey('bundles');
});
afterAll(async () => {
  await github.close();
  await stripe.close();
});

const bodyOf = (result: APIGatewayProxyStructuredResultV2) => JSON.parse(result.body ?? 'null');

describe('the bundles', () => {
  it.each(lambdas.map((l) => l.name))('%s is ESM with the createRequire banner, one file at cold start within the size budget', (name) => {
    const report = inject('bundles').find((b) => b.name === name)!;
    const source = readFileSync(`${bundleDir(name)}/index.mjs`, 'utf8');
    expect(source.startsWith(REQUIRE_BANNER)).toBe(true);
    expect(source).toMatch(/export\s*\{[^}]*\bhandler\b/);
    // One file at cold start: it imports no chunk before it runs, only packages and built-ins.
    expect(source).not.toMatch(/(?:^|[;}])\s*import\s*(?:[\w$*{}\s,]+?\s*from\s*)?["']\./);
    expect(report.loadedBytes).toBeLessThanOrEqual(COLD_START_BUDGET_BYTES);
  });

  it('carries the S3 client only in Lambdas granted a bucket', () => {
    const carriesS3 = (name: string) =>
      readdirSync(bundleDir(name), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.mjs'))
        .some((file) => readFileSync(join(bundleDir(name), file), 'utf8').includes('com.amazonaws.s3#'));
    for (const l of lambdas) expect(carriesS3(l.name), l.name).toBe(Boolean(l.content || l.static));
  });

  it('builds no zod schema at import: each is built by the first request that reads it', () => {
    // zod calls its global post-processor with every schema it constructs; counting those calls
    // while a bundle is imported, then while one schema is built with the repository's zod (the
    // version bundled), shows the count is live.
    const zod = pathToFileURL(createRequire(import.meta.url).resolve('zod')).href;
    const built = (name: string) => {
      const script = `let n = 0; globalThis.__zod_globalConfig = { postProcessor: () => n++ };
        await import(${JSON.stringify(pathToFileURL(join(bundleDir(name), 'index.mjs')).href)}); const atImport = n;
        (await import(${JSON.stringify(zod)})).string(); process.stdout.write(JSON.stringify([atImport, n]));`;
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      });
      return JSON.parse(String(out)) as [number, number];
    };
    for (const l of lambdas) expect(built(l.name), l.name).toEqual([0, 1]);
  }, 120_000);

  it("carries zod's functional API (zod/mini) only, never the classic one, whose every method is defined at import", () => {
    // Each classic schema class is made by `$constructor("ZodString", ...)` and so on; mini's are ZodMini….
    for (const l of lambdas) expect(carries(l.name, '"ZodString"'), l.name).toBe(false);
  });

  it("takes Lambda's credentials from the environment, without the SDK's default chain (SSO, profiles, processes, metadata)", () => {
    for (const l of lambdas) expect(carries(l.name, 'defaultProvider::fromSSO'), l.name).toBe(false);
  });

  it('loads the S3 SDK on the first call to S3, not at a cold start: no file the cold start loads carries it', () => {
    for (const l of lambdas.filter((l) => l.content || l.static)) {
      const { loaded } = inject('bundles').find((b) => b.name === l.name)!;
      expect(loaded.length, l.name).toBeGreaterThan(0);
      expect(
        loaded.filter((file) => readFileSync(file, 'utf8').includes('com.amazonaws.s3#')),
        l.name,
      ).toEqual([]);
    }
  });

  it('carries the scanner only in Lambdas that scan, so the others deploy no 2.3 MB chunk they never load', () => {
    // The rule engine's chunk is named after its entry, core/scan/scan.ts.
    const carriesScanner = (name: string) => readdirSync(join(bundleDir(name), 'chunks')).some((file) => /^scan-\w+\.mjs$/.test(file));
    for (const l of lambdas) expect(carriesScanner(l.name), l.name).toBe(Boolean(l.scans));
  });

  it('answers every route each Lambda is given, rather than the 404 of an unknown route', async () => {
    const http = lambdas.filter((l) => l.routes);
    const invocations = await Promise.all(
      http.map((lambda) =>
        invokeBundle(
          lambda.name,
          lambda.routes!.map((route) => routeEvent(route)),
          env,
        ),
      ),
    );
    http.forEach((lambda, n) => {
      lambda.routes!.forEach((route, i) => {
        const result = resultOf(invocations[n]!, i);
        expect(result.statusCode, `${lambda.name}: ${route}`).toBeLessThan(500);
        // ClawHub's API answers errors as text (docs/api.md §14), the rest in JSON.
        const message = result.headers?.['x-error-code'] ? result.body : result.statusCode === 404 ? bodyOf(result).error.message : undefined;
        if (result.statusCode === 404) expect(message, `${lambda.name}: ${route}`).not.toBe('No such route');
      });
    });
  }, 120_000);
});

describe('auth', () => {
  it('signs in, answers /api/me from the cookies array, and answers an unknown path with the JSON 404', async () => {
    const invocation = await invokeBundle(
      'auth',
      [
        httpApiEvent('POST', '/api/auth/dev-login', { headers: { 'content-type': 'application/json', origin: SITE }, body: { login: 'bob' } }),
        httpApiEvent('GET', '/api/me', { cookies: [cookie, 'other=1'] }),
        httpApiEvent('GET', '/api/nothing/here', { routeKey: '$default' }),
        httpApiEvent('POST', '/api/auth/dev-login', { headers: { 'content-type': 'application/json', origin: SITE }, body: '{"login":' }),
        httpApiEvent('GET', '/api/health'),
      ],
      env,
    );
    const login = resultOf(invocation, 0);
    expect(login.statusCode).toBe(200);
    expect(login.cookies?.[0]).toMatch(/^skillpress_session=[\w-]{43}; .*HttpOnly.*Secure/);
    expect(bodyOf(resultOf(invocation, 1))).toEqual({ user: { id: 'dev:alice', login: 'alice' }, admin: false });
    expect(resultOf(invocation, 2).statusCode).toBe(404);
    expect(bodyOf(resultOf(invocation, 2)).error.code).toBe('not_found');
    expect(resultOf(invocation, 3).statusCode).toBe(400);
    expect(bodyOf(resultOf(invocation, 4))).toEqual({ status: 'ok' }); // the rebuild runs in its own Lambda: nothing failing here
  });

  it('serves the OpenAPI document of every operation, not only of the routes it mounts', async () => {
    const invocation = await invokeBundle('auth', [httpApiEvent('GET', '/api/openapi.json')], env);
    expect(bodyOf(resultOf(invocation, 0))).toEqual(openApiDocument());
  });

  it('loads the OpenAPI document, every operation and its schemas, on the first request for it, not at a cold start', () => {
    const marker = 'openapi:"3.1.0"';
    const { loaded } = inject('bundles').find((b) => b.name === 'auth')!;
    const files = readdirSync(bundleDir('auth'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.mjs'));
    expect(loaded.filter((file) => readFileSync(file, 'utf8').includes(marker))).toEqual([]);
    expect(files.some((file) => readFileSync(join(bundleDir('auth'), file), 'utf8').includes(marker))).toBe(true);
  });

  it('runs GitHub sign-in end to end against the fake GitHub', async () => {
    const code = github.issueCode({ id: 1001, login: 'gh-bundle', name: 'Bundle Tester' });
    const state = 'S'.repeat(43);
    const invocation = await invokeBundle(
      'auth',
      [
        httpApiEvent('GET', '/api/auth/github'),
        httpApiEvent('GET', '/api/auth/github/callback', { query: { code, state }, cookies: [`skillpress_oauth_state=${state}`] }),
      ],
      env,
    );
    const start = resultOf(invocation, 0);
    expect(start.statusCode).toBe(302);
    const location = new URL(String(start.headers!.location));
    expect(location.searchParams.get('redirect_uri')).toBe(`${SITE}/api/auth/github/callback`);
    const done = resultOf(invocation, 1);
    expect(done.statusCode).toBe(302);
    expect(done.headers!.location).toBe('/dashboard/');
    expect(done.cookies!.some((c) => c.startsWith('skillpress_session='))).toBe(true);
    expect(github.exchanges.filter((e) => e.code === code)).toHaveLength(1);
  });
});

describe('the write path, the stream rebuild, delivery and the schedules', () => {
  let skill: { id: string; slug: string; scan?: unknown };
  const auth = () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

  it('creates and lists API keys from a session, with the site Origin', async () => {
    const invocation = await invokeBundle(
      'api-keys',
      [
        httpApiEvent('POST', '/api/api-keys', {
          cookies: [cookie],
          headers: { origin: SITE, 'content-type': 'application/json' },
          body: { name: 'from the bundle' },
        }),
        httpApiEvent('GET', '/api/api-keys', { cookies: [cookie] }),
        httpApiEvent('POST', '/api/api-keys', {
          cookies: [cookie],
          headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
          body: { name: 'csrf' },
        }),
      ],
      env,
    );
    expect(resultOf(invocation, 0).statusCode).toBe(201);
    expect(bodyOf(resultOf(invocation, 0)).key).toMatch(/^sk_/);
    expect(bodyOf(resultOf(invocation, 1)).keys.map((k: { name: string }) => k.name)).toContain('from the bundle');
    expect(resultOf(invocation, 2).statusCode).toBe(403);
  });

  it('publishes a skill from a base64-encoded body, then a version, storing content in S3 and items in DynamoDB', async () => {
    const body = { name: 'Bundle Skill', description: 'Published through the bundle', category: 'Testing', files: [skillFile('bundle-skill', '# v1')] };
    const published = await invokeBundle('publish', [httpApiEvent('POST', '/api/publish', { headers: auth(), body, base64: true })], env);
    const created = resultOf(published, 0);
    expect(created.statusCode).toBe(201);
    expect(created.headers!['ratelimit-remaining']).toBe('4');
    skill = bodyOf(created);
    const publishVersion = (body: unknown) =>
      invokeBundle(
        'versions',
        [
          httpApiEvent('POST', `/api/skills/${skill.id}/versions`, {
            routeKey: 'POST /api/skills/{id}/versions',
            pathParameters: { id: skill.id },
            headers: auth(),
            body,
          }),
        ],
        env,
      );

    const versioned = await publishVersion({ version: '1.1.0', files: [skillFile('bundle-skill', '# v1.1')] });
    expect(resultOf(versioned, 0).statusCode).toBe(201);
    expect(bodyOf(resultOf(versioned, 0)).currentVersion).toBe('1.1.0');
    // The scanner is a chunk the bundle loads on first use: it is there, and it decides.
    expect(skill.scan).toMatchObject({ verdict: 'clean', findings: [] });
    const refused = await publishVersion({ version: '1.2.0', files: [{ filename: 'SKILL.md', content: renamedSkillMd(MALICIOUS_SKILL_MD, 'bundle-skill') }] });
    expect(resultOf(refused, 0).statusCode).toBe(422);
    expect(bodyOf(resultOf(refused, 0)).error.code).toBe('content_rejected');
    // So is the Agent Skills check, with its YAML parser.
    const invalid = await publishVersion({
      version: '1.2.0',
      files: [{ filename: 'SKILL.md', content: '---\nname: another-skill\ndescription: [unclosed\n---\n' }],
    });
    expect(resultOf(invalid, 0).statusCode).toBe(400);
    expect(bodyOf(resultOf(invalid, 0)).error).toMatchObject({ code: 'invalid_skill', details: { issues: [expect.objectContaining({ file: 'SKILL.md' })] } });

    const { Item } = await stack.deps.db.doc.send(new GetCommand({ TableName: stack.deps.db.table, Key: versionKey(skill.id, '1.1.0') }));
    expect(Item?.version).toBe('1.1.0');
    const sha = sha256Hex(new TextEncoder().encode(skillFile('bundle-skill', '# v1.1').content));
    expect(await objectExists(stack.deps.s3, stack.config.contentBucket, blobKey(sha))).toBe(true);
  });

  it('rebuilds the static files from a stream batch, ignoring other entities, and dispatches the site build', async () => {
    github.dispatches.length = 0;
    const batch = {
      Records: [
        streamRecord(`SKILL#${skill.id}`, 'META'),
        streamRecord(`SKILL#${skill.id}`, 'VERSION#1.1.0'),
        streamRecord(`DL#${skill.id}`, 'TOTAL', 'MODIFY'),
      ],
    };
    const invocation = await invokeBundle('rebuild', [batch, { Records: [streamRecord('SESSION#x', 'SESSION', 'REMOVE')] }], env);
    expect(invocation.results).toEqual([{ ok: { batchItemFailures: [] } }, { ok: { batchItemFailures: [] } }]);
    const registry = JSON.parse(Buffer.from((await stack.deps.staticStore.get(registryKey(skill.slug)))!).toString('utf8'));
    expect(registry).toMatchObject({ id: skill.id, currentVersion: '1.1.0' });
    expect(github.dispatches).toHaveLength(1);
    // A write patches the catalog's page and index; the schedule assembles the whole catalog, once per change.
    const index = JSON.parse(Buffer.from((await stack.deps.staticStore.get(CATALOG_INDEX_KEY))!).toString('utf8'));
    expect(index.count).toBeGreaterThan(0);
    const assembled = await invokeBundle('rebuild', [scheduledEvent('AssembleCatalog'), scheduledEvent('AssembleCatalog')], env);
    expect(assembled.results).toEqual([{ ok: { assembled: true } }, { ok: { assembled: false } }]);
    const catalog = JSON.parse(Buffer.from((await stack.deps.staticStore.get(CATALOG_KEY))!).toString('utf8'));
    expect(catalog.skills.map((s: { slug: string }) => s.slug)).toContain(skill.slug);
    expect(catalog.count).toBe(index.count);
  });

  it('delivers a free skill, counts it, and shows the count in analytics', async () => {
    const delivered = await invokeBundle(
      'deliver',
      [
        httpApiEvent('GET', `/api/deliver/${skill.id}`, {
          routeKey: 'GET /api/deliver/{skillId}',
          query: { source: 'cli' },
          pathParameters: { skillId: skill.id },
        }),
      ],
      env,
    );
    const result = resultOf(delivered, 0);
    expect(result.statusCode).toBe(200);
    expect(result.headers!['cache-control']).toBe('private, no-store');
    expect(bodyOf(result)).toMatchObject({ skillId: skill.id, version: '1.1.0', files: [skillFile('bundle-skill', '# v1.1')] });

    const analytics = await invokeBundle('analytics', [httpApiEvent('GET', `/api/analytics/${skill.id}`, { cookies: [cookie] })], env);
    expect(bodyOf(resultOf(analytics, 0))).toMatchObject({ total: 1, bySource: { cli: 1, web: 0, api: 0 } });
  });

  it('issues a download token for the author', async () => {
    const path = `/api/skills/${skill.id}/download-tokens`;
    const invocation = await invokeBundle('access', [httpApiEvent('POST', path, { headers: auth(), body: { maxUses: 2 } })], env);
    expect(resultOf(invocation, 0).statusCode).toBe(201);
    expect(bodyOf(resultOf(invocation, 0))).toMatchObject({ maxUses: 2 });
  });

  it('runs the daily full rebuild and the scheduled flush', async () => {
    github.dispatches.length = 0;
    const setLock = (pending: boolean) =>
      stack.deps.db.doc.send(new PutCommand({ TableName: stack.deps.db.table, Item: { ...siteBuildLockKey, windowEndsAt: 0, pending } }));
    await setLock(false);
    const full = await invokeBundle('full-rebuild', [scheduledEvent('DailyFullRebuild')], env);
    expect(full.results).toEqual([{ ok: { skills: 1, written: expect.any(Number), failed: [], site: 'dispatched' } }]);

    // A build deferred by an earlier window that has ended: the flush dispatches it, once.
    await setLock(true);
    const flush = await invokeBundle('site-build', [scheduledEvent('FlushSiteBuild'), scheduledEvent('FlushSiteBuild')], env);
    expect(flush.results).toEqual([{ ok: 'dispatched' }, { ok: 'idle' }]);
    expect(github.dispatches).toHaveLength(2);

    // The state machine's way: each shard's bundle, then the finish's, which writes the indexes and asks for a site build.
    const run = `bundle-run-${Date.now()}`;
    const shards = await invokeBundle(
      'rebuild-shard',
      [
        { run, shard: 0, shards: 2 },
        { run, shard: 1, shards: 2 },
        { run, shard: 2, shards: 2 },
      ],
      env,
    );
    expect(shards.results.slice(0, 2).map((r) => ('ok' in r ? r.ok : r))).toEqual([
      { shard: 0, skills: expect.any(Number), failed: 0, written: expect.any(Number) },
      { shard: 1, skills: expect.any(Number), failed: 0, written: expect.any(Number) },
    ]);
    expect(shards.results[2]).toEqual({ threw: expect.stringContaining('not a shard of a full rebuild') });
    const finished = await invokeBundle('full-rebuild', [{ run, shards: 2 }], env);
    expect(finished.results).toEqual([{ ok: expect.objectContaining({ skills: 1, failed: [], written: expect.any(Number) }) }]);
  });
});

describe('payments', () => {
  it('opens a checkout through the bundled Stripe SDK and records the paid session from a signed webhook', async () => {
    const published = await withKey(stack, key, '/api/publish', {
      body: { name: 'Bundle Sale', description: 'd', category: 'testing', paid: true, price: { amount: 700, currency: 'GBP' } },
    });
    const skill = (await published.json()) as { id: string; slug: string };
    const buyer = await Client.signIn(stack, 'bundle-buyer');
    const checkout = await invokeBundle(
      'purchases',
      [
        httpApiEvent('POST', `/api/skills/${skill.id}/checkout`, {
          routeKey: 'POST /api/skills/{id}/checkout',
          pathParameters: { id: skill.id },
          cookies: [buyer.cookie!],
          headers: { origin: SITE },
        }),
      ],
      env,
    );
    const opened = resultOf(checkout, 0);
    expect(opened.statusCode).toBe(201);
    const { sessionId } = bodyOf(opened);
    expect(stripe.sessions.get(sessionId)).toMatchObject({
      amount_total: 700,
      currency: 'gbp',
      success_url: `${SITE}/purchase/?skill=${skill.slug}&session_id={CHECKOUT_SESSION_ID}`,
    });

    const { payload, signature } = stripe.sign(stripe.pay(sessionId));
    const hook = await invokeBundle(
      'stripe-webhook',
      [
        httpApiEvent('POST', '/api/stripe/webhook', {
          headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
          body: payload,
          base64: true,
        }),
      ],
      env,
    );
    expect(resultOf(hook, 0).statusCode).toBe(200);
    expect(bodyOf(resultOf(hook, 0))).toEqual({ received: true, outcome: 'granted' });
    expect((await buyer.session(`/api/deliver/${skill.id}`)).status).toBe(200);
  });
});

describe('ClawHub clients', () => {
  it('publish from a multipart body that API Gateway base64-encodes, and download it as a ZIP the bundle sends as binary', async () => {
    const skillMd = '---\nname: bundle-claw\ndescription: Published by clawdhub through the bundle\n---\n# Claw\n';
    const form = new FormData();
    form.set('payload', JSON.stringify({ slug: 'bundle-claw', displayName: 'Bundle Claw', version: '0.1.0', changelog: 'first' }));
    form.append('files', new Blob([skillMd]), 'SKILL.md');
    // Nothing to run, so the version is the skill's latest at once: this is about the bytes, not the sandbox.
    form.append('files', new Blob(['# Usage\n\nAsk for a claw.\n']), 'references/usage.md');
    const encoded = new Response(form);
    const body = Buffer.from(await encoded.arrayBuffer()).toString('utf8');
    const headers = { authorization: `Bearer ${key}`, 'content-type': encoded.headers.get('content-type')! };
    const published = await invokeBundle('clawhub-publish', [httpApiEvent('POST', '/api/v1/skills', { headers, body, base64: true })], env);
    expect(resultOf(published, 0).statusCode).toBe(201);
    expect(bodyOf(resultOf(published, 0))).toMatchObject({ ok: true, versionId: 'bundle-claw@0.1.0' });

    const read = await invokeBundle(
      'clawhub',
      [
        httpApiEvent('GET', '/api/v1/download', { query: { slug: 'bundle-claw', version: '0.1.0' } }),
        httpApiEvent('GET', '/.well-known/clawdhub.json'),
        httpApiEvent('GET', '/api/v1/skills/bundle-claw', { routeKey: 'GET /api/v1/skills/{slug}', pathParameters: { slug: 'bundle-claw' } }),
      ],
      env,
    );
    const zip = resultOf(read, 0);
    expect([zip.statusCode, zip.isBase64Encoded, zip.headers!['content-type']]).toEqual([200, true, 'application/zip']);
    const files = unzipSync(Buffer.from(zip.body!, 'base64'));
    expect(Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, Buffer.from(bytes).toString('utf8')]))).toEqual({
      'SKILL.md': skillMd,
      'references/usage.md': '# Usage\n\nAsk for a claw.\n',
    });
    expect(bodyOf(resultOf(read, 1))).toEqual({ apiBase: SITE });
    expect(bodyOf(resultOf(read, 2)).latestVersion).toMatchObject({ version: '0.1.0', changelog: 'first' });
  });

  it('load the ZIP writer only on the download path: it is a chunk of its own, not in the entry file', () => {
    const marker = 'date not in range 1980-2099';
    const dir = bundleDir('clawhub');
    const chunks = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.mjs'));
    expect(readFileSync(join(dir, 'index.mjs'), 'utf8')).not.toContain(marker);
    expect(chunks.some((file) => readFileSync(join(dir, file), 'utf8').includes(marker))).toBe(true);
  });
});

describe('the stream rebuild with a skill it cannot rebuild', () => {
  it("rebuilds the batch's other skills and reports only the failing skill's first record, so the shard is not held", async () => {
    const publish = async (name: string) => {
      const res = await withKey(stack, key, '/api/publish', { body: { name, description: 'd', category: 'testing' } });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; slug: string };
    };
    const good = await publish('Stream Good');
    const bad = await publish('Stream Bad');
    await stack.idle();
    await plantFault(stack.deps.db, bad.id, 'unstorable');
    await stack.deps.s3.send(new DeleteObjectCommand({ Bucket: stack.config.staticBucket, Key: registryKey(good.slug) }));

    const batch = {
      Records: [
        streamRecord(`SKILL#${good.id}`, 'META', 'MODIFY', '100'),
        streamRecord(`SKILL#${bad.id}`, `VERSION#${UNSTORABLE_VERSION}`, 'INSERT', '200'),
        streamRecord(`SKILL#${bad.id}`, 'META', 'MODIFY', '300'),
      ],
    };
    const invocation = await invokeBundle('rebuild', [batch], env);
    expect(invocation.results).toEqual([{ ok: { batchItemFailures: [{ itemIdentifier: '200' }] } }]);
    const registry = JSON.parse(Buffer.from((await stack.deps.staticStore.get(registryKey(good.slug)))!).toString('utf8'));
    expect(registry).toMatchObject({ id: good.id, currentVersion: '1.0.0' });
  });
});

/** Whether any module file of a Lambda's bundle holds `text`. */
function carries(name: string, text: string): boolean {
  return readdirSync(bundleDir(name), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.mjs'))
    .some((file) => readFileSync(join(bundleDir(name), file), 'utf8').includes(text));
}
