import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SIGNING_KEYS_KEY } from '#core/static-paths';
import { runInProcess } from '../support/cli-in-process.ts';
import { fileTree } from '../support/file-tree.ts';
import { type FakeRegistry, type FakeSkill, fakeRegistryWorkspace, fakeSignature, type Route, skillRoutes } from '../support/fake-registry.ts';

/**
 * The client against a registry that lies, on loopback: whatever it names, nothing is written
 * outside the project, and a lie is refused before anything is written at all.
 */

const { work, env, start } = fakeRegistryWorkspace('hostile');
const SIGNING_KEYS_PATH = `/${SIGNING_KEYS_KEY}`;
let registry: FakeRegistry | undefined;

let sandboxes = 0;
/** A project two folders deep in an otherwise empty folder, so escapes upwards can be seen. */
function sandbox(): { root: string; project: string } {
  const root = join(work, `sandbox-${++sandboxes}`);
  const project = join(root, 'a', 'b', 'project');
  mkdirSync(project, { recursive: true });
  return { root, project };
}

async function serve(route: Route | FakeSkill[]): Promise<string> {
  registry = await start(Array.isArray(route) ? skillRoutes(route) : route);
  return registry.url;
}

const cli = (cwd: string, url: string, ...args: string[]) => runInProcess([...args, '--registry', url], { cwd, env });

describe('a registry that names paths outside the project', () => {
  const escapes: [string, unknown][] = [
    ['two folders up', { '../../evil-dep': '*' }],
    ['an absolute path', { '/tmp/skillpress-evil-abs': '*' }],
    ['a Windows path', { '..\\..\\evil-win': '*' }],
    ['a slug through a real one', { 'helper/../../../evil-through': '*' }],
    ['a prototype key, which a plain object would drop', JSON.parse('{"__proto__": "*", "helper": "*"}')],
  ];

  it.each(escapes)('refuses a dependency named with %s: exit 3, unsafe_path, nothing written', async (_, dependencies) => {
    const { root, project } = sandbox();
    const names = Object.keys(dependencies as object);
    const url = await serve([{ slug: 'app', dependencies }, { slug: 'helper' }, ...names.map((slug) => ({ slug }))]);
    const result = await cli(project, url, 'install', 'app', '--json');
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.json.error.code).toBe('unsafe_path');
    expect(fileTree(root)).toEqual(['a/', 'a/b/', 'a/b/project/']);
    // The lie is refused before the dependency is even looked up. The registry's public signing
    // keys are asked for beside the first lookup, so the signature checks need not wait for them:
    // a read of what the registry publishes to everyone, which writes nothing in the project.
    const looked = registry!.requests.filter((path) => !path.startsWith('/api/registry/app') && !path.startsWith('/api/registry/helper'));
    expect(looked.filter((path) => path !== SIGNING_KEYS_PATH)).toEqual([]);
  });

  it('refuses a registry document about another skill than the one asked for', async () => {
    const { root, project } = sandbox();
    const url = await serve([{ slug: 'app', doc: { slug: '../../app' } }]);
    const result = await cli(project, url, 'install', 'app', '--json');
    expect(result.code).toBe(2);
    expect(result.json.error).toMatchObject({ code: 'bad_response', message: expect.stringContaining('a document about "../../app"') });
    expect(fileTree(root)).toEqual(['a/', 'a/b/', 'a/b/project/']);
  });

  it('refuses a batch resolve’s document about another skill as a lookup’s, and ignores entries out of place', async () => {
    const { root, project } = sandbox();
    const lookups = skillRoutes([{ slug: 'app' }, { slug: 'helper' }]);
    const lying = {
      skills: [
        { slug: 'app', registry: { slug: '../../app' } },
        { slug: 'helper', registry: { slug: 'helper' } },
      ],
    };
    const url = await serve((url) => (url.pathname === '/api/resolve' ? { body: lying } : lookups(url)));
    const result = await cli(project, url, 'install', 'app', 'helper', '--json');
    expect(result.code).toBe(2);
    expect(result.json.error).toMatchObject({ code: 'bad_response', message: expect.stringContaining('a document about "../../app"') });
    expect(fileTree(root)).toEqual(['a/', 'a/b/', 'a/b/project/']);
    // Entries answering other skills than the ones in their place are not read: the lookups answer.
    const swapped = {
      skills: [
        { slug: 'helper', registry: { slug: 'helper' } },
        { slug: 'app', registry: { slug: 'app' } },
      ],
    };
    const honest = await serve((url) => (url.pathname === '/api/resolve' ? { body: swapped } : lookups(url)));
    const installed = await cli(project, honest, 'install', 'app', 'helper', '--json');
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    expect(fileTree(join(project, '.agents/skills'))).toEqual(['app/', 'app/SKILL.md', 'helper/', 'helper/SKILL.md']);
  });

  it('refuses a current version that is not semver, which would go into the lockfile', async () => {
    const { project } = sandbox();
    const url = await serve([{ slug: 'app', version: '1.0.0\u001b[2J' }]);
    const result = await cli(project, url, 'install', 'app', '--json');
    expect(result.code).toBe(2);
    expect(result.json.error.code).toBe('bad_response');
    expect(fileTree(project)).toEqual([]);
  });
});

describe('skills whose slug names an Object member', () => {
  it('installs, reinstalls, lists and uninstalls constructor, and a dependency of that name', async () => {
    const { root, project } = sandbox();
    const url = await serve([
      { slug: 'app', dependencies: { constructor: '^1.0.0' } },
      { slug: 'constructor', files: [{ filename: 'SKILL.md', content: '# constructor' }] },
    ]);
    const installed = await cli(project, url, 'install', 'app', '--json');
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    expect(installed.json.installed.map((s: { slug: string; path: string }) => [s.slug, s.path])).toEqual([
      ['app', '.agents/skills/app'],
      ['constructor', '.agents/skills/constructor'],
    ]);
    expect(fileTree(root)).toContain('a/b/project/.agents/skills/constructor/SKILL.md');

    const direct = await cli(project, url, 'install', 'constructor', '--json');
    expect(direct.code, direct.stdout + direct.stderr).toBe(0);
    expect(direct.json.unchanged).toEqual([{ slug: 'constructor', version: '1.0.0', path: '.agents/skills/constructor' }]);

    rmSync(join(project, '.agents'), { recursive: true });
    const replay = await cli(project, url, 'install', '--json');
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    expect(replay.json.installed.map((s: { slug: string }) => s.slug).sort()).toEqual(['app', 'constructor']);

    const listed = await cli(project, url, 'list', '--json');
    expect(listed.json.skills.map((s: { slug: string; state: string }) => [s.slug, s.state])).toEqual([
      ['app', 'ok'],
      ['constructor', 'ok'],
    ]);
    // app depends on constructor, so uninstalling it keeps it, as a dependency.
    const kept = await cli(project, url, 'uninstall', 'constructor', '--json');
    expect(kept.json).toEqual({ removed: [], kept: [{ slug: 'constructor', neededBy: ['app'] }], lockfile: 'skillpress-lock.json' });
    const removed = await cli(project, url, 'uninstall', 'app', '--json');
    expect(removed.json.removed).toEqual(['app', 'constructor']);
    expect(fileTree(project)).toEqual(['.agents/', '.agents/skills/', 'skillpress-lock.json']);
  });

  it('names the exit code of a server error code such as constructor or toString', async () => {
    const { project } = sandbox();
    const url = await serve(() => ({ status: 404, body: { error: { code: 'toString', message: 'no' } } }));
    const result = await cli(project, url, 'info', 'app');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('toString: no');
  });
});

describe('answers larger than the registry ever sends', () => {
  it('refuses a delivery above twice the largest publish body, as bad_response (exit 2), writing nothing', async () => {
    const { project } = sandbox();
    const content = Buffer.alloc(13 * 1024 * 1024, 'a').toString('base64');
    const url = await serve([
      {
        slug: 'huge',
        files: [
          { filename: 'SKILL.md', content: '# huge' },
          { filename: 'big.bin', content, encoding: 'base64' },
        ],
      },
    ]);
    const result = await cli(project, url, 'install', 'huge', '--json');
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.json.error).toMatchObject({
      code: 'bad_response',
      message: expect.stringMatching(/^GET .*\/api\/deliver\/fake-0 answered with more than 13 MB/),
    });
    expect(fileTree(project)).toEqual([]);
  });

  it('stops reading an endless registry document after its limit', async () => {
    const { project } = sandbox();
    let sent = 0;
    const url = await serve(() => ({
      stream: (res) => {
        const chunk = Buffer.alloc(64 * 1024, ' ');
        res.write('{"slug":"endless","pad":"');
        const more = () => {
          // Ends after 256 MiB at most, so a client that never stops still finishes.
          while (!res.destroyed && sent < 256 * 1024 * 1024) {
            sent += chunk.byteLength;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end('"}');
        };
        more();
      },
    }));
    const result = await cli(project, url, 'info', 'endless', '--json');
    expect(result.code).toBe(2);
    expect(result.json.error).toMatchObject({ code: 'bad_response', message: expect.stringContaining('answered with more than 4.2 MB') });
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('a registry that sends escape sequences and control characters', () => {
  const evil = (label: string) => `${label}\u001b]0;pwned\u0007\u001b[2J\u001b[H\u009b2J\r\u202e\u001b[8m!`;
  const hostileSkill: FakeSkill = {
    slug: 'app',
    dependencies: { helper: `^9.0.0${evil('')}` },
    files: [{ filename: `notes-\u202egnp.sh`, content: 'x' }],
    doc: {
      name: evil('Evil name'),
      description: `${evil('Line one')}\nline two`,
      author: evil('mallory'),
      category: evil('testing'),
      updatedAt: evil('2025-01-01'),
      versions: [
        {
          version: '1.0.0',
          changelog: evil('Changelog'),
          publishedAt: evil('2025-01-01'),
          integrity: 'sha256-x',
          // Signed, as a mirror serving these lies unchanged would: only the escapes are under test.
          signature: fakeSignature({ slug: 'app', version: '1.0.0', integrity: 'sha256-x' }),
        },
      ],
    },
  };
  const catalog = {
    schemaVersion: 1,
    generatedAt: '',
    count: 1,
    skills: [
      {
        id: 'x',
        slug: evil('app'),
        name: evil('Evil'),
        description: evil('Desc'),
        category: 'c',
        author: evil('mallory'),
        currentVersion: evil('1.0.0'),
        paid: false,
        updatedAt: '',
        registry: '',
      },
    ],
  };
  const hostile: Route = (url) => {
    if (url.pathname === '/.well-known/skills.json') return { body: catalog };
    if (url.pathname === '/api/search')
      return {
        body: { query: url.searchParams.get('q'), total: 1, skills: catalog.skills.map((s) => ({ ...s, installs: 0, score: 1 })), didYouMean: evil('evil') },
      };
    if (url.pathname === '/api/registry/broken')
      return {
        status: 500,
        body: { error: { code: evil('internal'), message: evil('Message'), details: { [evil('key')]: evil('value'), issues: undefined } } },
      };
    return skillRoutes([hostileSkill, { slug: 'helper' }])(url);
  };
  /** The only escape sequences left are the client's own colours; no other control character. */
  const expectClean = (output: string, colour: boolean) => {
    const withoutOwnColours = output.replace(/\u001b\[(1|2|22|31|32|33|36|39)m/g, '');
    expect(withoutOwnColours).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    if (!colour) expect(output).not.toContain('\u001b');
  };

  it.each([false, true])('prints info, search, warnings and errors without them (colour: %s)', async (colour) => {
    const { project } = sandbox();
    const url = await serve(hostile);
    const run = (...args: string[]) =>
      runInProcess([...args, '--registry', url], { cwd: project, env: { ...env, ...(colour ? { FORCE_COLOR: '1' } : { NO_COLOR: '1' }) } });
    const info = await run('info', 'app');
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain('Evil name');
    expect(info.stdout).toContain('Changelog');
    expect(info.stdout).toContain('Line one!\nline two');
    const search = await run('search', 'evil');
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).toContain('Desc');
    // The dependency's range matches nothing: the refusal quotes it.
    const install = await run('install', 'app');
    expect(install.code).toBe(1);
    expect(install.stderr).toContain('no_matching_version');
    const error = await run('info', 'broken');
    expect(error.code).toBe(2);
    expect(error.stderr).toContain('Message');
    expect(error.stderr).toContain('key!: value!');
    if (colour) expect(info.stdout + error.stderr).toContain('\u001b[1m');
    for (const output of [info.stdout, info.stderr, search.stdout, install.stdout, install.stderr, error.stdout, error.stderr]) expectClean(output, colour);
  });

  it('keeps --json exactly what the registry sent, escaped so that it is inert on a terminal', async () => {
    const { project } = sandbox();
    const url = await serve(hostile);
    const info = await cli(project, url, 'info', 'app', '--json');
    expect(info.json.name).toBe(hostileSkill.doc!.name);
    expect(info.json.versions[0].changelog).toBe((hostileSkill.doc!.versions as { changelog: string }[])[0]!.changelog);
    const error = await cli(project, url, 'info', 'broken', '--json');
    expect(error.json.error.message).toBe(evil('Message'));
    for (const output of [info.stdout, error.stdout]) expect(output).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});

describe('slugs that are awkward folder names elsewhere', () => {
  it('installs and lists a skill named like a Windows device (aux is a valid slug)', async () => {
    const { project } = sandbox();
    const url = await serve([{ slug: 'aux' }]);
    const installed = await cli(project, url, 'install', 'aux', '--json');
    expect(installed.code, installed.stdout).toBe(0);
    const listed = await cli(project, url, 'list', '--json');
    expect(listed.code, listed.stdout).toBe(0);
    expect(listed.json.skills).toMatchObject([{ slug: 'aux', path: '.agents/skills/aux', state: 'ok' }]);
  });
});
