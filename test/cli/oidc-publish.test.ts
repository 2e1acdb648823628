import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serveApp } from '#scripts/local/http-server';
import { runInProcess } from '../support/cli-in-process.ts';
import { type FakeOidc, githubClaims, startFakeOidc } from '../support/fake-oidc.ts';
import { skillMd } from '../support/skill-md.ts';
import { Client, createTestStack, json, type TestStack, withKey } from '../support/stack.ts';

/**
 * The CI side of trusted publishing (docs/api.md §7.14), as an author tries it: the repository's
 * GitHub Action (cli/action.yml), run as a runner runs it with a fake Actions token endpoint and
 * a fake OIDC issuer on loopback, publishes a version with no API key anywhere; `info` shows where
 * it came from, and `install --require-provenance` takes it and refuses a laptop-published one.
 */

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'skillpress-oidc-'));
let oidc: FakeOidc;
let stack: TestStack;
let server: Server;
let registry: string;
let skill: { id: string; slug: string };
const repository = 'octo/pretty-skills';

beforeAll(async () => {
  oidc = await startFakeOidc();
  stack = await createTestStack({}, { SKILLPRESS_OIDC_ISSUER: oidc.issuer, SKILLPRESS_OIDC_JWKS_COOLDOWN_MS: '0' });
  const served = await serveApp(stack.runtime.app.fetch, '127.0.0.1', 0, stack.runtime.cdn);
  server = served.server;
  registry = `http://127.0.0.1:${served.port}`;
  // As `npm start` does: the origin it listens on is the audience its OIDC tokens must name.
  stack.runtime.listening(registry);
  const alice = await Client.signIn(stack, 'ci-alice');
  const key = await alice.createKey();
  const created = await withKey(stack, key, '/api/publish', {
    body: {
      name: 'OIDC Pretty',
      slug: 'oidc-pretty',
      description: 'Formats things',
      category: 'testing',
      files: [{ filename: 'SKILL.md', content: skillMd('oidc-pretty', '# 1.0.0') }],
    },
  });
  expect(created.status).toBe(201);
  skill = await json(created);
  const trusted = await alice.session(`/api/skills/${skill.id}/trusted-publishers`, {
    method: 'POST',
    body: { provider: 'github', repository, workflow: 'publish.yml' },
  });
  expect(trusted.status).toBe(201);
  oidc.runnerClaims = { ...githubClaims(repository), ref: 'refs/tags/v1.1.0', run_id: '777', sha: 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00' };
}, 60_000);
afterAll(async () => {
  server?.close();
  await stack.runtime.close();
  await oidc.close();
  rmSync(work, { recursive: true, force: true });
});

const home = { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config') };

/** The action's one step, run by bash as a runner runs a composite step, with its inputs in the environment. */
function runAction(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const action = parse(readFileSync(join(repoRoot, 'cli/action.yml'), 'utf8'));
  const script: string = action.runs.steps[0].run;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: work, env: { PATH: process.env.PATH ?? '', ...home, ...env } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the GitHub Action', () => {
  it('publishes the tag as a version with the OIDC token alone, and the version records this run', async () => {
    const folder = join(work, 'skill');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'SKILL.md'), skillMd('oidc-pretty', '# 1.1.0 from CI'));
    const result = await runAction({
      INPUT_REGISTRY: registry,
      INPUT_VERSION: '',
      INPUT_PATH: 'skill',
      INPUT_CHANGELOG: 'Built in CI',
      INPUT_CLI: `${process.execPath} ${join(repoRoot, 'cli/bin.mjs')}`,
      GITHUB_REF: 'refs/tags/v1.1.0',
      ACTIONS_ID_TOKEN_REQUEST_URL: oidc.requestUrl,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: oidc.requestToken,
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('oidc-pretty@1.1.0');
    // The runner was asked for a token for this registry, and no key was stored or sent.
    expect(oidc.audiences.at(-1)).toBe(registry);
    await stack.idle();
    const versions = (await json(await stack.request('/api/registry/oidc-pretty/versions'))).versions;
    expect(versions[0]).toMatchObject({
      version: '1.1.0',
      changelog: 'Built in CI',
      publishedBy: `github:${repository}`,
      provenance: {
        repository,
        sha: 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00',
        runId: '777',
        ref: 'refs/tags/v1.1.0',
        workflow: '.github/workflows/publish.yml',
      },
    });
  }, 120_000);

  it('stops, saying why, in a job without id-token: write', async () => {
    const result = await runAction({ INPUT_REGISTRY: registry, INPUT_VERSION: '1.2.0', INPUT_PATH: 'skill', INPUT_CHANGELOG: '', INPUT_CLI: 'false' });
    expect(result.code).toBe(1);
    expect(result.output).toContain('id-token: write');
  });
});

describe('what users see of it', () => {
  const cli = (...args: string[]) => {
    const project = join(work, 'project');
    mkdirSync(project, { recursive: true });
    return runInProcess([...args, '--registry', registry], { cwd: project, env: home });
  };

  it('skillpress info shows the repository, commit and run', async () => {
    const result = await cli('info', 'oidc-pretty');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`built from ${repository}@c0ffee0 by .github/workflows/publish.yml`);
    expect(result.stdout).toContain(`https://github.com/${repository}/actions/runs/777/attempts/1`);
  });

  it('install --require-provenance installs it, and refuses the laptop-published 1.0.0 (exit 1, no_provenance)', async () => {
    const ok = await cli('install', 'oidc-pretty', '--require-provenance', '--json');
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    const refused = await cli('install', 'oidc-pretty@1.0.0', '--require-provenance', '--json');
    expect(refused.code).toBe(1);
    expect(refused.json.error.code).toBe('no_provenance');
  });

  it('version --oidc outside CI is a usage error that names the fix', async () => {
    const result = await cli('version', join(work, 'skill'), '1.3.0', '--oidc', '--json');
    expect(result.code).toBe(1);
    expect(result.json.error.hint).toContain('id-token: write');
  });
});
