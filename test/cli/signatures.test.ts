import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleIntegrity, decodeFile } from '#core/bundle';
import { runInProcess } from '../support/cli-in-process.ts';
import { fileTree } from '../support/file-tree.ts';
import { FAKE_KEYS, type FakeRegistry, fakeRegistryWorkspace, fakeSignature, type FakeSkill, type Route, skillRoutes } from '../support/fake-registry.ts';

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
        summaries((v) => (v.signature = fakeSignature('hello', '0.9.0', integrity))),
      ),
    ],
    [
      'the signature of another skill',
      lying(
        { slug: 'hello', files: helloFiles },
        summaries((v) => (v.signature = fakeSignature('other', '1.0.0', integrity))),
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
      'another integrity, signed by nobody, with content to match (a CDN serving other bytes)',
      lying({ slug: 'hello', files: [{ filename: 'SKILL.md', content: '---\nname: hello\ndescription: Says hello\n---\n# Evil\n' }] }, (path, body) => {
        if (path.startsWith('/api/registry/')) for (const v of body.versions) v.signature = fakeSignature('hello', '1.0.0', integrity);
        return body;
      }),
    ],
  ];

  it.each(cases)('%s', async (_, route) => {
    const dir = project();
    const result = await cli(dir, await serve(route), 'install', 'hello');
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.json.error.code).toBe('bad_signature');
    expect(fileTree(dir)).toEqual([]);
    // Refused before its content was even asked for.
    expect(registry!.requests.some((path) => path.startsWith('/api/deliver/'))).toBe(false);
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
      return { ...answer, body: summaries((v) => (v.signature = fakeSignature('hello', '1.0.1', integrity)))(u.pathname, structuredClone(answer.body)) };
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
