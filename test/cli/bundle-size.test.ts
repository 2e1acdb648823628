import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleCli, DIST, packagedFiles } from '../../cli/bundle.mjs';

/**
 * What the CLI's package weighs, and what a start of `skillpress install` has to parse: the
 * scanner (its shell grammar, secretlint's rules) and the publish path's yaml and zod are loaded
 * only by the commands that use them, so an install reads a small part of the package.
 */

const KiB = 1024;
let files: string[];

beforeAll(async () => {
  await bundleCli();
  files = packagedFiles();
});

/** The package's modules that `file` imports before any of its code runs (static imports, transitively). */
function loadedAtStart(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = readFileSync(join(DIST, file), 'utf8');
  // Static imports only: `import{a as b}from"./x.mjs"` and `import"./x.mjs"`, never `import("./x.mjs")`.
  for (const [, specifier] of code.matchAll(/\bimport\s*(?:[\w$*{}\s,]+?\s*from\s*)?["'](\.\/[^"']+)["']/g)) loadedAtStart(specifier!.slice(2), seen);
  return seen;
}

const bytes = (names: Iterable<string>) => [...names].reduce((n, name) => n + statSync(join(DIST, name)).size, 0);

describe('the CLI package', () => {
  it('holds at most 1 MiB of code; the shell grammar ships as WebAssembly files beside it', () => {
    const code = files.filter((f) => f.endsWith('.mjs'));
    expect(code).toContain('cli.mjs');
    expect(code).toContain('skillpress.mjs');
    expect(files.filter((f) => f.endsWith('.wasm')).sort()).toEqual(['tree-sitter-bash.wasm', 'web-tree-sitter.wasm']);
    expect(bytes(code)).toBeLessThanOrEqual(1024 * KiB);
  });

  it('starts a command by loading a small part of it: no scanner, no yaml, no zod until a command needs them', () => {
    const loaded = loadedAtStart('cli.mjs');
    const text = [...loaded].map((f) => readFileSync(join(DIST, f), 'utf8')).join('\n');
    expect(text).not.toContain('tree-sitter');
    expect(text).not.toContain('secretlint');
    expect(text).not.toContain('YAMLMap');
    expect(text).not.toContain('ZodError');
    // The scanner's modules are in the package, in a module loaded on demand.
    const scanner = files.filter((f) => f.endsWith('.mjs') && !loaded.has(f) && readFileSync(join(DIST, f), 'utf8').includes('tree-sitter-bash.wasm'));
    expect(scanner.length).toBe(1);
    expect(bytes(loaded)).toBeLessThanOrEqual(300 * KiB);
  });
});
