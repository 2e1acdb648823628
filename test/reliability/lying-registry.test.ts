import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireFile } from '#core/bundle';
import { runInProcess } from '../support/cli-in-process.ts';
import { fileTree } from '../support/file-tree.ts';
import { type FakeRegistry, type FakeSkill, type Route, skillRoutes, startFakeRegistry } from '../support/fake-registry.ts';

/**
 * Property: whatever a registry says — dependency names with `..`, absolute paths, `/`, `\`,
 * control characters or prototype keys, documents about other skills, deliveries with hostile
 * file names — `skillpress install` (and the lockfile replay and `update` after it) writes
 * nothing outside the project it runs in, and inside it nothing but install folders and the
 * lockfile. Each run is a fresh project two folders deep in an empty folder, against a registry
 * on loopback built from the generated lies.
 */

const RUNS = Number(process.env.LYING_REGISTRY_RUNS ?? 120);

const work = mkdtempSync(join(tmpdir(), 'skillpress-lying-'));
let registry: FakeRegistry;
let route: Route = () => undefined;

beforeAll(async () => {
  registry = await startFakeRegistry((url) => route(url));
});
afterAll(async () => {
  await registry?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Names a lying registry might give a skill or a file. */
const hostileName = fc.oneof(
  fc.constantFrom(
    '..',
    '../..',
    '../../evil',
    '../../../../../../tmp/skillpress-evil',
    '/tmp/skillpress-evil-abs',
    '/',
    '\\',
    '..\\..\\evil',
    'C:\\evil',
    '.',
    '',
    '~',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'helper/../../evil',
    '%2e%2e/evil',
    'evil\u0000',
    'evil\u001b[2J',
    '.agents',
    'skills',
    'skillpress-lock.json',
    'skills-lock.json',
  ),
  fc.string({ unit: fc.constantFrom('.', '/', '\\', 'a', 'b', '-', ':', '%', '\u0000', '\u001b', '\n', '_'), maxLength: 12 }),
);

/** Mostly lies, but honest names often enough that installs get as far as writing. */
const skillName = fc.oneof({ arbitrary: hostileName, weight: 1 }, { arbitrary: fc.constantFrom('helper', 'a-b', 'constructor', 'x1'), weight: 1 });

/** Now and then a lie in one more place. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary, weight: 1 });

const file = (filename: string): WireFile => ({ filename, content: `# ${filename}\n` });

/** A registry: `app` and every generated name, each depending on some of the others. */
const lyingRegistry = fc
  .record({
    names: fc.uniqueArray(skillName, { minLength: 1, maxLength: 5 }),
    edges: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 8 }),
    fileNames: fc.array(sometimes(hostileName), { minLength: 6, maxLength: 6 }),
    docSlugs: fc.array(sometimes(hostileName), { minLength: 6, maxLength: 6 }),
    deliverySlugs: fc.array(sometimes(hostileName), { minLength: 6, maxLength: 6 }),
  })
  .map(({ names, edges, fileNames, docSlugs, deliverySlugs }): FakeSkill[] => {
    const slugs = ['app', ...names];
    const dependencies = slugs.map(() => Object.create(null) as Record<string, string>);
    // app always names the first lie; the rest is up to the generator.
    dependencies[0]![names[0]!] = '*';
    for (const [from, to] of edges) dependencies[from % slugs.length]![slugs[to % slugs.length]!] = '*';
    return slugs.map((slug, i) => ({
      slug,
      dependencies: dependencies[i],
      files: [file('SKILL.md'), ...(fileNames[i] === undefined ? [] : [file(fileNames[i]!)])],
      ...(docSlugs[i] === undefined ? {} : { doc: { slug: docSlugs[i] } }),
      ...(deliverySlugs[i] === undefined ? {} : { delivery: { slug: deliverySlugs[i] } }),
    }));
  });

/** An honest registry and a plain lie, always run, so both outcomes are reached whatever the seed. */
const HONEST: FakeSkill[] = [
  { slug: 'app', dependencies: { helper: '*' }, files: [file('SKILL.md')] },
  { slug: 'helper', files: [file('SKILL.md')] },
];
const CLIMBING: FakeSkill[] = [
  { slug: 'app', dependencies: { '../../evil': '*' }, files: [file('SKILL.md')] },
  { slug: '../../evil', files: [file('SKILL.md')] },
];

let runs = 0;
const outcomes = new Map<string, number>();

describe('a lying registry', () => {
  it('never makes the client write outside the project', async () => {
    await fc.assert(
      fc.asyncProperty(lyingRegistry, async (skills) => {
        const root = join(work, `run-${++runs}`);
        const project = join(root, 'a', 'b', 'project');
        mkdirSync(project, { recursive: true });
        const env = { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config') };
        route = skillRoutes(skills);
        for (const args of [['install', 'app'], ['install'], ['update']]) {
          const result = await runInProcess([...args, '--json', '--registry', registry.url], { cwd: project, env });
          expect([0, 1, 2, 3], result.stdout).toContain(result.code);
          const key = `${args.join(' ')} → ${result.code} ${result.json?.error?.code ?? 'ok'}`;
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        }
        const outside = fileTree(root).filter((path) => !path.startsWith('a/b/project/') && !['a/', 'a/b/'].includes(path));
        expect(outside).toEqual([]);
        const inside = fileTree(project).filter((path) => path !== '.agents/' && !path.startsWith('.agents/skills/') && path !== 'skillpress-lock.json');
        expect(inside).toEqual([]);
        rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: RUNS, examples: [[HONEST], [CLIMBING]] },
    );
    // The generator must reach both refusals and real installs, or the property proves little.
    const codes = [...outcomes.keys()].join('\n');
    expect(codes).toContain('install app → 3 unsafe_path');
    expect(codes).toContain('install app → 0 ok');
  });
});
