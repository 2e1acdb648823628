import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);

describe('the skillpress executable', () => {
  it('is registered as the package bin, so npx skillpress runs it from the repository', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
    expect(pkg.bin).toEqual({ skillpress: 'cli/bin.mjs' });
    const bin = new URL('cli/bin.mjs', root);
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(bin).mode & 0o111).not.toBe(0);
  });
});
