import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleIntegrity, decodeFile } from '#core/bundle';
import { runInProcess } from '../support/cli-in-process.ts';
import { fileTree } from '../support/file-tree.ts';
import { sign } from 'node:crypto';
import { signedMessage } from '#core/version-signature';
import {
  FAKE_KEY,
  FAKE_KEYS,
  type FakeRegistry,
  fakeEndorsement,
  fakeRegistryWorkspace,
  fakeSignature,
  fakeSigningKey,
  type FakeSkill,
  type Route,
  skillRoutes,
} from '../support/fake-registry.ts';

/**
 * The registry's signatures, as the client checks them (docs/api.md §11.11): a registry, CDN or
 * mirror that serves a version whose signature does not hold gets exit 3 `bad_signature` and
 * nothing written; `skillpress verify` rechecks a project against signatures fetched afresh.
 */

const { work, env, start } = fakeRegistryWorkspace('signatures');
let registry: FakeRegistry | undefined;

let projects = 0;
function project(): string {
  const dir = join(work, `project-${++projects}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function serve(route: Route): Promise<string> {
  registry = await start(route);
  return registry.url;
}

const cli = (cwd: string, url: string, ...args: string[]) => runInProcess([...args, '--registry', url, '--json'], { cwd, env });

/** Runs `skillpress install`, expecting a refusal for a bad signature before anything of the skill was downloaded. */
async function expectRefused(cwd: string, url: string, args: string[], problem?: string): Promise<void> {
  const before = registry!.requests.length;
  const result = await cli(cwd, url, 'install', ...args);
  expect(result.code, result.stdout + result.stderr).toBe(3);
  expect(result.json.error.code).toBe('bad_signature');
  if (problem) expect(result.json.error.message).toContain(problem);
  expect(registry!.requests.slice(before).some((path) => path.startsWith('/api/deliver/'))).toBe(false);
}

/** A registry serving `skill`, with `change` applied to its answers (the version summaries, keys.json). */
function lying(skill: FakeSkill, change: (path: string, body: any) => unknown): Route {
  const honest = skillRoutes([skill]);
  return (url, headers) => {
    const answer = honest(url, headers);
    if (!answer) return undefined;
    return { ...answer, body: change(url.pathname, structuredClone(answer.body)) };
  };
}

const helloFiles = [{ filename: 'SKILL.md', content: '---\nname: hello\ndescription: Says hello\n---\n# Hello\n' }];
const integrity = bundleIntegrity(helloFiles.map((f) => decodeFile(f)!));

/** Applies `edit` to every version summary in the registry document and the versions list. */
const summaries = (edit: (v: any) => void) => (path: string, body: any) => {
  if (path.startsWith('/api/registry/')) for (const v of body.versions) edit(v);
  return body;
};

describe('install refuses a version whose signature does not hold: exit 3, bad_signature, nothing written', () => {
  const cases: [string, Route][] = [
    [
      'no signature at all',
      lying(
        { slug: 'hello', files: helloFiles },
        summaries((v) => delete v.signature),
      ),
    ],
    [
      'one byte of the signature flipped',
      lying(
        { slug: 'hello', files: helloFiles },
        summaries((v) => {
          const sig = Buffer.from(v.signature.sig, 'base64');
          sig[sig.length - 1]! ^= 1;
          v.signature.sig = sig.toString('base64');
        }),
      ),
    ],
    [
      'the signature of another version',
      lying(
        { slug: 'hello', files: helloFiles },
        summaries((v) => (v.signature = fakeSignature({ slug: 'hello', version: '0.9.0', integrity }))),
      ),
    ],
    [
      'the signature of another skill',
      lying(
        { slug: 'hello', files: helloFiles },
        summaries((v) => (v.signature = fakeSignature({ slug: 'other', version: '1.0.0', integrity }))),
      ),
    ],
    [
      'a key the registry does not publish',
      lying(
        { slug: 'hello', files: helloFiles },
        summaries((v) => (v.signature.keyid = 'SHA256:someone-else')),
      ),
    ],
    ['no keys.json', (url, headers) => (url.pathname.includes('keys.json') ? undefined : skillRoutes([{ slug: 'hello', files: helloFiles }])(url, headers))],
    [
      'a keys.json whose key is not the one it names',
      lying({ slug: 'hello', files: helloFiles }, (path, body) =>
        path.includes('keys.json') ? { keys: [{ ...body.keys[0], keyid: 'SHA256:AAAA' }] } : summaries((v) => (v.signature.keyid = 'SHA256:AAAA'))(path, body),
      ),
    ],
    [
      'an expired key',
      lying({ slug: 'hello', files: helloFiles }, (path, body) =>
        path.includes('keys.json') ? { keys: [{ ...body.keys[0], expires: '2025-06-01T00:00:00.000Z' }] } : body,
      ),
    ],
    [
      'a scan verdict turned from suspicious into clean',
      lying(
        { slug: 'hello', files: helloFiles },
        summaries((v) => {
          v.scan = { verdict: 'clean', rulesVersion: '1', findings: [] };
          v.signature = fakeSignature({ slug: 'hello', version: '1.0.0', integrity, scan: { verdict: 'suspicious' } });
        }),
      ),
    ],
    [
      'findings marked reviewed on appeal',
      lying(
        { slug: 'hello', files: helloFiles },
        summaries((v) => {
          v.scan = { verdict: 'suspicious', rulesVersion: '1', findings: [], reviewed: { by: 'mallory', at: '2025-01-01T00:00:00.000Z' } };
          v.signature = fakeSignature({ slug: 'hello', version: '1.0.0', integrity, scan: { verdict: 'suspicious' } });
        }),
      ),
    ],
    [
      'provenance added',
      lying(
        { slug: 'hello', files: helloFiles },
        summaries((v) => {
          v.provenance = {
            provider: 'github',
            repository: 'acme/hello',
            workflow: '.github/workflows/publish.yml',
            workflowRef: 'acme/hello/.github/workflows/publish.yml@refs/tags/v1.0.0',
            ref: 'refs/tags/v1.0.0',
            sha: 'a'.repeat(40),
            runId: '1',
            runAttempt: '1',
            issuer: 'https://token.actions.githubusercontent.com',
          };
        }),
      ),
    ],
    [
      'a yank hidden',
      lying(
        { slug: 'hello', files: helloFiles },
        summaries((v) => (v.signature = fakeSignature({ slug: 'hello', version: '1.0.0', integrity, yanked: true }))),
      ),
    ],
    [
      'a signature of format 1, which covers the integrity alone',
      lying(
        { slug: 'hello', files: helloFiles },
        summaries((v) => {
          const sig = sign('sha256', Buffer.from(signedMessage({ slug: 'hello', version: '1.0.0', integrity }, 1)), {
            key: FAKE_KEY.privateKey,
            dsaEncoding: 'der',
          });
          v.signature = { keyid: FAKE_KEY.entry.keyid, sig: sig.toString('base64') };
        }),
      ),
    ],
    [
      'another integrity, signed by nobody, with content to match (a CDN serving other bytes)',
      lying({ slug: 'hello', files: [{ filename: 'SKILL.md', content: '---\nname: hello\ndescription: Says hello\n---\n# Evil\n' }] }, (path, body) => {
        if (path.startsWith('/api/registry/')) for (const v of body.versions) v.signature = fakeSignature({ slug: 'hello', version: '1.0.0', integrity });
        return body;
      }),
    ],
  ];

  it.each(cases)('%s', async (_, route) => {
    const dir = project();
    // Refused before its content was even asked for.
    await expectRefused(dir, await serve(route), ['hello']);
    expect(fileTree(dir)).toEqual([]);
    // Nor does info show what the signature does not cover.
    const shown = await cli(dir, registry!.url, 'info', 'hello');
    expect([shown.code, shown.json.error?.code]).toEqual([3, 'bad_signature']);
  });

  it('installs a version whose signature holds, with the keys read once', async () => {
    const dir = project();
    const result = await cli(dir, await serve(skillRoutes([{ slug: 'hello', files: helloFiles }, { slug: 'world' }])), 'install', 'hello', 'world');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(registry!.requests.filter((path) => path.endsWith('keys.json'))).toHaveLength(1);
    expect(FAKE_KEYS.keys).toHaveLength(1);
  });
});

describe('skillpress verify', () => {
  it('passes an intact project, then exits 3 when a file changes on disk or the registry signature stops holding', async () => {
    const dir = project();
    let tamper = false;
    const honest = skillRoutes([{ slug: 'hello', files: helloFiles }]);
    const url = await serve((u, h) => {
      const answer = honest(u, h);
      if (!answer || !tamper) return answer;
      return {
        ...answer,
        body: summaries((v) => (v.signature = fakeSignature({ slug: 'hello', version: '1.0.1', integrity })))(u.pathname, structuredClone(answer.body)),
      };
    });
    expect((await cli(dir, url, 'install', 'hello')).code).toBe(0);
    const ok = await cli(dir, url, 'verify');
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.json.skills).toEqual([{ slug: 'hello', version: '1.0.0', path: expect.any(String), state: 'ok' }]);

    tamper = true;
    const badSig = await cli(dir, url, 'verify');
    expect(badSig.code).toBe(3);
    expect(badSig.json.error.code).toBe('bad_signature');
    expect(badSig.json.error.details.failed).toEqual(['hello@1.0.0: bad_signature']);

    tamper = false;
    const skillMd = join(dir, ok.json.skills[0].path, 'SKILL.md');
    writeFileSync(skillMd, `${readFileSync(skillMd, 'utf8')}\nrm -rf ~\n`);
    const modified = await cli(dir, url, 'verify');
    expect(modified.code).toBe(3);
    expect(modified.json.error.code).toBe('integrity_mismatch');
    expect(modified.json.error.details.failed).toEqual(['hello@1.0.0: modified']);
  });

  it('exits 3 when the registry now publishes another integrity for the installed version', async () => {
    const dir = project();
    let other = false;
    const url = await serve((u, h) =>
      skillRoutes([
        { slug: 'hello', files: other ? [{ filename: 'SKILL.md', content: '---\nname: hello\ndescription: Says hello\n---\n# Changed\n' }] : helloFiles },
      ])(u, h),
    );
    expect((await cli(dir, url, 'install', 'hello')).code).toBe(0);
    other = true;
    const result = await cli(dir, url, 'verify');
    expect(result.code).toBe(3);
    expect(result.json.error.details.failed).toEqual(['hello@1.0.0: integrity_changed']);
  });
});

/** A registry serving `hello` whose versions are signed by `key` and whose keys.json lists `keys`, both changeable between runs. */
function rotating(state: { key: typeof FAKE_KEY; keys: unknown[] }): Route {
  const honest = skillRoutes([{ slug: 'hello', files: helloFiles }]);
  return (url, headers) => {
    const answer = honest(url, headers);
    if (!answer) return undefined;
    if (url.pathname.endsWith('keys.json')) return { body: { keys: state.keys } };
    return {
      ...answer,
      body: summaries((v) => (v.signature = fakeSignature({ slug: 'hello', version: '1.0.0', integrity }, state.key)))(
        url.pathname,
        structuredClone(answer.body),
      ),
    };
  };
}

describe('keys are pinned: a mirror cannot re-sign', () => {
  it('refuses a mirror that re-signs with its own key what the lockfile recorded as signed by the registry’s, on install and verify', async () => {
    const dir = project();
    const installed = await cli(dir, await serve(skillRoutes([{ slug: 'hello', files: helloFiles }])), 'install', 'hello');
    expect(installed.code, installed.stderr).toBe(0);
    const lock = JSON.parse(readFileSync(join(dir, 'skillpress-lock.json'), 'utf8'));
    expect(lock.skills.hello.signedBy).toBe(FAKE_KEY.entry.keyid);
    await registry!.close();

    // The mirror serves the same bytes, every document internally consistent, signed by a key of its own.
    const mirrorKey = fakeSigningKey();
    const mirror = await serve(rotating({ key: mirrorKey, keys: [mirrorKey.entry] }));
    const verified = await cli(dir, mirror, 'verify');
    expect(verified.code, verified.stdout).toBe(3);
    expect(verified.json.error.details.failed).toEqual(['hello@1.0.0: bad_signature']);

    rmSync(join(dir, '.agents'), { recursive: true });
    await expectRefused(dir, mirror, [], 'neither pinned');
    expect(fileTree(dir)).toEqual(['skillpress-lock.json']);
  });

  it('records the keys it trusted first in config.json, and then refuses another key at the same registry', async () => {
    const state = { key: FAKE_KEY, keys: [FAKE_KEY.entry] as unknown[] };
    const url = await serve(rotating(state));
    expect((await cli(project(), url, 'install', 'hello')).code).toBe(0);
    const config = JSON.parse(readFileSync(join(env.XDG_CONFIG_HOME!, 'skillpress', 'config.json'), 'utf8'));
    expect(config.keys[url]).toEqual([{ keyid: FAKE_KEY.entry.keyid, publicKey: FAKE_KEY.entry.publicKey }]);

    const other = fakeSigningKey();
    state.key = other;
    state.keys = [other.entry];
    await expectRefused(project(), url, ['hello'], 'neither pinned');
  });

  it('follows a rotation the old key endorsed, and records the new key; refuses one it did not endorse', async () => {
    const dir = project();
    const state = { key: FAKE_KEY, keys: [FAKE_KEY.entry] as unknown[] };
    const url = await serve(rotating(state));
    expect((await cli(dir, url, 'install', 'hello')).code).toBe(0);

    // A chain of two rotations: the pinned key endorsed the second, which endorsed the third.
    const second = fakeSigningKey();
    const third = fakeSigningKey();
    const retired = { ...FAKE_KEY.entry, expires: '2999-01-01T00:00:00.000Z' };
    state.key = third;
    state.keys = [
      { ...third.entry, endorsedBy: fakeEndorsement(second, third) },
      { ...second.entry, expires: '2999-01-01T00:00:00.000Z', endorsedBy: fakeEndorsement(FAKE_KEY, second) },
      retired,
    ];
    const verified = await cli(dir, url, 'verify');
    expect(verified.code, verified.stdout).toBe(0);
    rmSync(join(dir, '.agents'), { recursive: true });
    const reinstalled = await cli(dir, url, 'install');
    expect(reinstalled.code, reinstalled.stdout).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'skillpress-lock.json'), 'utf8')).skills.hello.signedBy).toBe(third.entry.keyid);

    // A key "endorsed" by one the client never trusted, or with a signature over another key's id, is not.
    const rogue = fakeSigningKey();
    const stranger = fakeSigningKey();
    for (const endorsedBy of [fakeEndorsement(stranger, rogue), { ...fakeEndorsement(FAKE_KEY, second), keyid: FAKE_KEY.entry.keyid }]) {
      state.key = rogue;
      state.keys = [{ ...rogue.entry, endorsedBy }, retired];
      await expectRefused(project(), url, ['hello'], 'neither pinned');
    }
  });
});
