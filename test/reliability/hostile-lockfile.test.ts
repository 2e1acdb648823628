import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleIntegrity, decodeFile, fileEntries, sha256Hex } from '#core/bundle';
import { runInProcess } from '../support/cli-in-process.ts';
import { fileTree } from '../support/file-tree.ts';
import { type FakeRegistry, skillRoutes, startFakeRegistry } from '../support/fake-registry.ts';

/**
 * Property: whatever a committed `skillpress-lock.json` says — paths into `.git`, onto `src`,
 * through `..`, roots it invents in `dirs`, files it claims — `skillpress install`, `update` and
 * `uninstall` change none of the project's own files and write nothing outside the project.
 * The project holds source, a git folder with hooks, and a user's file inside an install folder.
 */

const RUNS = Number(process.env.HOSTILE_LOCKFILE_RUNS ?? 100);

const work = mkdtempSync(join(tmpdir(), 'skillpress-hostile-lockfile-'));
let registry: FakeRegistry;
const helperFiles = [
  { filename: 'SKILL.md', content: '# helper\n' },
  { filename: 'pre-commit', content: 'touch pwned\n' },
];

beforeAll(async () => {
  registry = await startFakeRegistry(skillRoutes([{ slug: 'helper', files: helperFiles }, { slug: 'src' }, { slug: 'hooks' }]));
});
afterAll(async () => {
  await registry?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The project's own files: none may change, whatever the lockfile says. */
const OWN = {
  'src/main.ts': 'export {};\n',
  'src/helper/index.ts': 'mine\n',
  '.git/HEAD': 'ref: refs/heads/main\n',
  '.git/hooks/pre-push.sample': '#!/bin/sh\n',
  '.agents/skills/hooks/my-notes.md': 'mine\n',
  'README.md': '# app\n',
};

const hostilePath = fc.oneof(
  fc.constantFrom(
    '.git',
    '.git/hooks',
    '.GIT/hooks',
    '.git/hooks/helper',
    'src',
    'src/helper',
    '.',
    '..',
    '../helper',
    '.agents/skills',
    '.agents',
    'README.md',
  ),
  fc.constantFrom('.agents/skills/helper', '.agents/skills/src', '.agents/skills/hooks', '.claude/skills/helper', 'skills/src', 'vendor/helper'),
  fc.array(fc.constantFrom('.git', 'src', 'hooks', 'helper', '.agents', 'skills', '..', '.'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/')),
);

/** A file of the project as a lockfile would claim it: the attacker read the commit, so the digest is right. */
const claimed = (filename: string, text: string) => ({ filename, sha256: sha256Hex(Buffer.from(text)), size: Buffer.byteLength(text) });

const files = fc.constantFrom(
  fileEntries(helperFiles.map((f) => decodeFile(f)!)),
  [{ filename: 'index.ts', sha256: 'a'.repeat(64), size: 5 }],
  [{ filename: 'main.ts', sha256: 'b'.repeat(64), size: 11 }],
  // The project's own source, claimed by name and digest: src/helper/index.ts, and src itself.
  [claimed('index.ts', OWN['src/helper/index.ts'])],
  [claimed('main.ts', OWN['src/main.ts']), claimed('helper/index.ts', OWN['src/helper/index.ts'])],
  [],
);

const entry = fc.constantFrom('helper', 'src', 'hooks').chain((slug) =>
  fc.record({
    slug: fc.constant(slug),
    // Often the slug's own folder under src, the project's source, through a root "dirs" lists.
    path: fc.oneof({ weight: 3, arbitrary: hostilePath }, { weight: 2, arbitrary: fc.constant(`src/${slug}`) }),
    files,
    direct: fc.boolean(),
    // Now and then: links obey the same rules as paths (cli/agent-links.ts).
    links: fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.array(fc.oneof(hostilePath, fc.constantFrom('.claude/skills/helper', '.claude/skills/hooks')), { maxLength: 2 }) },
    ),
  }),
);
const lockfile = fc.record({
  dirs: fc.option(fc.oneof({ weight: 1, arbitrary: fc.array(hostilePath, { maxLength: 3 }) }, { weight: 1, arbitrary: fc.constant(['src']) }), {
    nil: undefined,
  }),
  entries: fc.array(entry, { minLength: 1, maxLength: 3 }),
});

type Lockfile = typeof lockfile extends fc.Arbitrary<infer T> ? T : never;

/** The lockfile `skillpress install helper` itself would write: it must install. */
const HONEST: Lockfile = {
  dirs: undefined,
  entries: [{ slug: 'helper', path: '.agents/skills/helper', files: fileEntries(helperFiles.map((f) => decodeFile(f)!)), direct: true, links: undefined }],
};
const INTO_GIT: Lockfile = { ...HONEST, entries: [{ ...HONEST.entries[0]!, path: '.git/hooks' }] };
const ROOT_ON_SOURCE: Lockfile = { ...HONEST, dirs: ['src'], entries: [{ ...HONEST.entries[0]!, path: 'src/helper' }] };

let runs = 0;
const outcomes = new Map<string, number>();

describe('a hostile lockfile', () => {
  it('never changes the project’s own files nor writes outside the project', async () => {
    await fc.assert(
      fc.asyncProperty(lockfile, async ({ dirs, entries }) => {
        const root = join(work, `run-${++runs}`);
        const project = join(root, 'project');
        for (const [path, text] of Object.entries(OWN)) {
          mkdirSync(join(project, path, '..'), { recursive: true });
          writeFileSync(join(project, path), text);
        }
        const integrity = bundleIntegrity(helperFiles.map((f) => decodeFile(f)!));
        const skills = Object.fromEntries(
          entries.map((e) => [
            e.slug,
            {
              version: '1.0.0',
              integrity,
              files: e.files,
              id: 'fake-0',
              registry: registry.url,
              path: e.path,
              spec: 'latest',
              direct: e.direct,
              paid: false,
              ...(e.links ? { links: e.links } : {}),
            },
          ]),
        );
        writeFileSync(join(project, 'skillpress-lock.json'), JSON.stringify({ lockfileVersion: 1, skills, ...(dirs ? { dirs } : {}) }));
        const env = { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config') };
        for (const args of [['install'], ['update'], ['uninstall', entries[0]!.slug], ['install', '--force'], ['install', entries[0]!.slug]]) {
          const result = await runInProcess([...args, '--json', '--registry', registry.url], { cwd: project, env });
          expect([0, 1, 2, 3], result.stdout).toContain(result.code);
          const key = `${args.join(' ')} → ${result.code} ${result.json?.error?.code ?? 'ok'}`;
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        }
        for (const [path, text] of Object.entries(OWN)) expect(readFileSync(join(project, path), 'utf8'), path).toBe(text);
        expect(fileTree(join(project, '.git'))).toEqual(['HEAD', 'hooks/', 'hooks/pre-push.sample']);
        expect(fileTree(root).filter((path) => !path.startsWith('project/') && path !== 'project/')).toEqual([]);
        rmSync(root, { recursive: true, force: true });
      }),
      // The honest lockfile and the two plain attacks always run, so each outcome is reached whatever the seed.
      { numRuns: RUNS, examples: [[HONEST], [INTO_GIT], [ROOT_ON_SOURCE]] },
    );
    // Both refusals and real installs must be reached, or the property proves little.
    const seen = [...outcomes.keys()].join('\n');
    expect(seen).toContain('install → 1 lockfile_invalid');
    expect(seen).toContain('install → 1 untrusted_dir');
    expect(seen).toMatch(/^(install|update|install --force) → 0 ok$/m);
  });
});
