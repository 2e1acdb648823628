import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureServerBundle } from '../../scripts/serve.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
// Two folders below the root, as dist/server/ is: the depth the bundle's paths assume.
const out = mkdtempSync(join(root, 'dist', 'server-test-'));
const inputs = () => JSON.parse(readFileSync(join(out, 'inputs.json'), 'utf8')) as { fingerprint: string; files: string[] };

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("npm start's bundle", () => {
  it('is built from our sources alone, and not again while they are unchanged', async () => {
    expect(await ensureServerBundle(out)).toBe(true);
    const { files } = inputs();
    expect(files).toContain('scripts/start.ts');
    expect(files).toContain('scripts/local/background/worker.ts');
    expect(files.filter((file) => file.startsWith('node_modules/'))).toEqual([]);
    expect(await ensureServerBundle(out)).toBe(false);
  });

  it('is built again when what it was made of differs from the record, or a source went away', async () => {
    await ensureServerBundle(out);
    const record = (change: (built: { fingerprint: string; files: string[] }) => object) =>
      writeFileSync(join(out, 'inputs.json'), JSON.stringify(change(inputs())));
    // As if a source had changed since: its size or mtime no longer gives the recorded fingerprint.
    record((built) => ({ ...built, fingerprint: `${built.fingerprint.slice(1)}0` }));
    expect(await ensureServerBundle(out)).toBe(true);
    expect(await ensureServerBundle(out)).toBe(false);
    record((built) => ({ ...built, files: [...built.files, 'core/no-such-source.ts'] }));
    expect(await ensureServerBundle(out)).toBe(true);
    // A bundle file missing, as after a build cut short.
    rmSync(join(out, 'worker.mjs'));
    expect(await ensureServerBundle(out)).toBe(true);
    expect(await ensureServerBundle(out)).toBe(false);
    // Four builds of three entries, the scanner's grammar inside them: seconds each on a busy machine.
  }, 120_000);
});
