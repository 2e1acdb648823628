import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '#core/bundle';
import { runInProcess, stackFetch } from '../support/cli-in-process.ts';
import { Client, createTestStack, type TestStack } from '../support/stack.ts';

/**
 * The bytes an author publishes are the bytes a user installs, whatever they hold: published
 * with `skillpress publish`, carried by the real service, installed with `skillpress install`.
 */

const work = mkdtempSync(join(tmpdir(), 'skillpress-bytes-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let stack: TestStack;
let env: Record<string, string>;
const REGISTRY = 'http://localhost';

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  const alice = await Client.signIn(stack, 'alice');
  env = { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config'), SKILLPRESS_API_KEY: await alice.createKey() };
});

const cli = (cwd: string, ...args: string[]) => runInProcess([...args, '--registry', REGISTRY], { cwd, env, fetch: stackFetch(stack) });

const BOM = '\uFEFF';
/** Files that a decoder, a line-ending fix or a text round trip would change. */
const awkward: Record<string, Buffer> = {
  // What Office-made skills (docx, pptx, xlsx) start with; SKILL.md's front matter still parses.
  'SKILL.md': Buffer.from(`${BOM}---\r\nname: awkward-bytes\r\ndescription: Files that must arrive unchanged.\r\n---\r\n# Awkward\r\n`),
  'bom-only.txt': Buffer.from(BOM),
  'crlf.md': Buffer.from('line one\r\nline two\r\n\r\n'),
  'lone-cr.txt': Buffer.from('old mac\rline ends\r'),
  // Valid UTF-8 without NUL, so it travels as text: control characters, DEL, C1, escapes.
  'controls.txt': Buffer.from('\u0001\u0002\u0007\u0008\u000b\u000c\u001b[2J\u007f\u0085\u009b\u2028\u2029 tail'),
  // Not UTF-8: travels as base64 and must come back as the same bytes.
  'invalid-utf8.bin': Buffer.from([0xef, 0xbb, 0xbf, 0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xed, 0xa0, 0x80, 0x0d, 0x0a]),
  'utf16le-bom.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi\r\n', 'utf16le')]),
  'with-nul.bin': Buffer.from([0x00, 0xef, 0xbb, 0xbf, 0x00]),
};

describe('bytes published are bytes installed', () => {
  it('installs a BOM, CRLF, control characters and invalid UTF-8 exactly as published, with the published digests', async () => {
    const source = join(work, 'source');
    mkdirSync(source, { recursive: true });
    for (const [name, bytes] of Object.entries(awkward)) writeFileSync(join(source, name), bytes);

    const published = await cli(source, 'publish', '--category', 'testing', '--json');
    expect(published.code, published.stdout + published.stderr).toBe(0);
    expect(published.json.files.find((f: { filename: string }) => f.filename === 'invalid-utf8.bin').encoding).toBe('base64');
    expect(published.json.files.find((f: { filename: string }) => f.filename === 'SKILL.md').encoding).toBe('utf8');
    await stack.idle();

    const project = join(work, 'project');
    mkdirSync(project, { recursive: true });
    const installed = await cli(project, 'install', 'awkward-bytes', '--json');
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);

    const registry = (await (await stack.request('/api/registry/awkward-bytes')).json()) as { files: { filename: string; sha256: string }[] };
    const lock = JSON.parse(readFileSync(join(project, 'skillpress-lock.json'), 'utf8'));
    const locked = lock.skills['awkward-bytes'].files as { filename: string; sha256: string; size: number }[];
    for (const [name, bytes] of Object.entries(awkward)) {
      const onDisk = readFileSync(join(project, '.agents/skills/awkward-bytes', name));
      expect(onDisk.equals(bytes), name).toBe(true);
      expect(
        locked.find((f) => f.filename === name),
        name,
      ).toEqual({ filename: name, size: bytes.byteLength, sha256: sha256Hex(bytes) });
      expect(registry.files.find((f) => f.filename === name)?.sha256, name).toBe(sha256Hex(bytes));
    }
  });
});
