import { execFile } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FINGERPRINT, sourceFingerprint } from '../../cli/bundle.mjs';

const root = new URL('../../', import.meta.url);

describe('the skillpress executable', () => {
  it('is registered as the package bin, so npx skillpress runs it from the repository', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
    expect(pkg.bin).toEqual({ skillpress: 'cli/bin.mjs' });
    const bin = new URL('cli/bin.mjs', root);
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(bin).mode & 0o111).not.toBe(0);
  });

  it('rebuilds the bundle before running it when the sources changed since it was built', async () => {
    writeFileSync(FINGERPRINT, 'built from other sources\n');
    const { stdout } = await promisify(execFile)(process.execPath, [new URL('cli/bin.mjs', root).pathname, '--version']);
    expect(stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(readFileSync(FINGERPRINT, 'utf8')).toBe(`${sourceFingerprint()}\n`);
  });
});
