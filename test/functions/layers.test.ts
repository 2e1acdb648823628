import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The dependency rule of docs/architecture.md, read from the imports themselves: handlers → http
 * → services → store and content, `core/` beneath everything and doing no I/O, `platform/`
 * beside; the sandbox sees only `core/`, and its task on AWS (`sandbox-task/`) wires it to the
 * content bucket and Step Functions. A change that makes a route reach the store, or a service see HTTP, fails here.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

/** What each layer may import besides itself and npm packages. */
const allowed: Record<string, string[]> = {
  core: [],
  'functions/store': ['core', 'functions/platform'],
  'functions/content': ['core', 'functions/platform'],
  'functions/platform': ['core', 'functions/store', 'functions/content', 'functions/services'],
  'functions/services': ['core', 'functions/platform', 'functions/store', 'functions/content', 'functions/rebuild'],
  'functions/rebuild': ['core', 'functions/platform', 'functions/store', 'functions/content', 'functions/services'],
  'functions/http': ['core', 'functions/platform', 'functions/services'],
  'functions/handlers': ['core', 'functions/platform', 'functions/http', 'functions/services', 'functions/rebuild'],
  'functions/sandbox': ['core'],
  'functions/sandbox-task': ['core', 'functions/platform', 'functions/content', 'functions/sandbox'],
};

function sources(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|mjs)$/.test(name))
    .map((name) => join(folder, name));
}

/** The layer of a path from the root: `core`, `functions/<folder>`, or the top folder. */
function layerOf(path: string): string {
  const [top, second] = path.split('/');
  return top === 'functions' ? `functions/${second}` : top!;
}

/** Every import of our own code in `file` (relative or `#` alias), as a path from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].flatMap(([, spec]) => {
    if (spec!.startsWith('.')) return [relative(root, resolve(root, dirname(file), spec!))];
    if (spec!.startsWith('#')) return [spec!.slice(1)];
    return [];
  });
}

/** The imports of `file` (paths from the root) that its layer may not make. */
function breaks(file: string, targets: string[]): string[] {
  const layer = layerOf(file);
  const may = allowed[layer];
  if (!may) return [`${file} is in no known layer`];
  return targets.filter((target) => layerOf(target) !== layer && !may.includes(layerOf(target))).map((target) => `${file} imports ${target}`);
}

describe('the layers of the service', () => {
  const files = [...sources('core'), ...sources('functions')];

  it('finds the files it checks', () => {
    expect(files.filter((f) => f.startsWith('functions/http/routes/')).length).toBeGreaterThan(5);
    expect(files.filter((f) => f.startsWith('functions/store/')).length).toBeGreaterThan(5);
  });

  it('imports only downwards: no route reaches the store, no service sees HTTP, core imports no I/O layer', () => {
    expect(files.flatMap((file) => breaks(file, importsOf(file)))).toEqual([]);
  });

  it('names what breaks the rule', () => {
    expect(breaks('functions/http/routes/skills.ts', ['functions/store/skills', 'functions/services/publishing', 'core/errors'])).toEqual([
      'functions/http/routes/skills.ts imports functions/store/skills',
    ]);
    expect(breaks('core/bundle.ts', ['functions/platform/log'])).toEqual(['core/bundle.ts imports functions/platform/log']);
    expect(breaks('functions/services/publishing.ts', ['functions/http/errors.ts'])).toEqual([
      'functions/services/publishing.ts imports functions/http/errors.ts',
    ]);
    expect(breaks('functions/elsewhere/x.ts', [])).toEqual(['functions/elsewhere/x.ts is in no known layer']);
  });
});
