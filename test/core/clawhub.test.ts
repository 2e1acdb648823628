import { createHash } from 'node:crypto';
import { Unzip, UnzipInflate, unzipSync } from 'fflate';
import { describe, expect, it, vi } from 'vitest';
import { decodeFile } from '#core/bundle';
import { clawhubFingerprint, clawhubFingerprints } from '#core/clawhub-fingerprint';
import { pageByDate, topByInstalls } from '#core/clawhub-listing';
import { listingFromSkillFile } from '#core/skill-listing';
import { DEFAULT_CATEGORY } from '#core/slug';
import { skillZip } from '#core/skill-zip';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the ClawHub fingerprint', () => {
  const file = (filename: string) => ({ filename, sha256: sha256(filename) });

  it('hashes the lines path:sha256 of the files clawdhub lists, sorted as its localeCompare sorts them', () => {
    const files = ['SKILL.md', 'scripts/run.sh', 'assets/Logo.svg', 'references/api.md'].map(file);
    // Case folded first: assets, references, scripts, then SKILL.md (code-unit order would put SKILL.md first).
    const lines = ['assets/Logo.svg', 'references/api.md', 'scripts/run.sh', 'SKILL.md'].map((path) => `${path}:${sha256(path)}`);
    expect(clawhubFingerprint(files)).toBe(sha256(lines.join('\n')));
    expect(clawhubFingerprint([...files].reverse())).toBe(clawhubFingerprint(files));
  });

  it('leaves out what clawdhub does not list: dot paths, node_modules, binary extensions, paths it does not extract', () => {
    const listed = ['SKILL.md', 'notes.TXT'].map(file);
    const ignored = [
      '.env',
      'docs/.hidden.md',
      '.clawdhub/origin.json',
      'node_modules/x/index.js',
      'assets/logo.png',
      'LICENSE',
      'Makefile',
      'dir.d/file',
      'a..b.md',
    ].map(file);
    expect(clawhubFingerprint([...listed, ...ignored])).toBe(clawhubFingerprint(listed));
    expect(clawhubFingerprint([])).toBe(sha256(''));
  });

  it('lists every file for clawhub 0.23 but dot paths and node_modules, so a version with binary files has two fingerprints', () => {
    const text = ['SKILL.md', 'scripts/run.sh'].map(file);
    const binary = ['assets/logo.png', 'LICENSE'].map(file);
    const never = ['.clawhub/origin.json', 'docs/.hidden.md', 'node_modules/x/a.js', 'a..b.md'].map(file);
    const lines = ['assets/logo.png', 'LICENSE', 'scripts/run.sh', 'SKILL.md'].map((path) => `${path}:${sha256(path)}`);
    expect(clawhubFingerprint([...text, ...binary, ...never], 'clawhub')).toBe(sha256(lines.join('\n')));
    expect(clawhubFingerprints([...text, ...binary])).toEqual([clawhubFingerprint(text), clawhubFingerprint([...text, ...binary], 'clawhub')]);
    expect(clawhubFingerprints(text)).toEqual([clawhubFingerprint(text)]);
  });

  it('makes its collator with the first fingerprint, not when a Lambda imports it', async () => {
    vi.resetModules();
    const { Collator } = Intl;
    const made = vi.spyOn(Intl, 'Collator').mockImplementation(function (this: unknown, ...args: ConstructorParameters<typeof Collator>) {
      return new Collator(...args);
    } as typeof Collator);
    try {
      const fresh = await import('#core/clawhub-fingerprint');
      expect(made).not.toHaveBeenCalled();
      fresh.clawhubFingerprint([file('SKILL.md'), file('b.md')]);
      fresh.clawhubFingerprint([file('SKILL.md'), file('c.md')]);
      expect(made).toHaveBeenCalledTimes(1);
    } finally {
      made.mockRestore();
    }
  });
});

describe('the skill ZIP', () => {
  const files = [
    decodeFile({ filename: 'scripts/run.sh', content: '#!/bin/sh\necho hi\n' })!,
    decodeFile({ filename: 'SKILL.md', content: '# Skill\n' })!,
    decodeFile({ filename: 'assets/logo.png', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' })!,
    decodeFile({ filename: '__proto__', content: 'not a prototype' })!,
  ];

  /** The entries in order, read with fflate's streaming reader (its `unzipSync` keys an object by name, so it loses `__proto__`). */
  function entriesOf(zip: Uint8Array): [string, Buffer][] {
    const entries: [string, Buffer][] = [];
    const unzip = new Unzip((file) => {
      const chunks: Uint8Array[] = [];
      file.ondata = (error, chunk, final) => {
        if (error) throw error;
        chunks.push(chunk);
        if (final) entries.push([file.name, Buffer.concat(chunks)]);
      };
      file.start();
    });
    unzip.register(UnzipInflate);
    unzip.push(zip, true);
    return entries;
  }

  it('holds every file at its path, byte for byte, and is the same bytes every time', () => {
    const zip = skillZip(files);
    const entries = entriesOf(zip);
    expect(entries.map(([name]) => name)).toEqual(['SKILL.md', '__proto__', 'assets/logo.png', 'scripts/run.sh']);
    for (const [name, bytes] of entries) expect(bytes.equals(Buffer.from(files.find((f) => f.filename === name)!.bytes)), name).toBe(true);
    expect(Buffer.from(skillZip([...files].reverse())).equals(Buffer.from(zip))).toBe(true);
    // What clawdhub extracts with: every other file comes out as sent.
    expect(Object.keys(unzipSync(zip)).sort()).toEqual(['SKILL.md', 'assets/logo.png', 'scripts/run.sh']);
  });

  it('records each file as made on Unix, 0755 when executable and 0644 otherwise', () => {
    const zip = Buffer.from(skillZip([...files.slice(1), { ...files[0]!, executable: true }]));
    // The central directory: "version made by" (its high byte the system) at +4, external attributes at +38.
    const modes = new Map<string, [number, number]>();
    for (let at = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at >= 0; at = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4)) {
      const name = zip.subarray(at + 46, at + 46 + zip.readUInt16LE(at + 28)).toString('utf8');
      modes.set(name, [zip.readUInt8(at + 5), zip.readUInt32LE(at + 38) >>> 16]);
    }
    expect(modes.get('scripts/run.sh')).toEqual([3, 0o100755]);
    expect(modes.get('SKILL.md')).toEqual([3, 0o100644]);
    expect(modes.get('assets/logo.png')).toEqual([3, 0o100644]);
  });
});

describe('the ClawHub skill list', () => {
  const skills = [
    { slug: 'a', createdAt: '2025-01-01T00:00:00.000Z', updatedAt: '2026-01-03T00:00:00.000Z' },
    { slug: 'b', createdAt: '2025-01-04T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' },
    { slug: 'c', createdAt: '2025-01-02T00:00:00.000Z', updatedAt: '2026-01-03T00:00:00.000Z' },
    { slug: 'd', createdAt: '2025-01-03T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z' },
  ];
  const byUpdated = (limit: number, cursor?: string, entries = skills) => pageByDate(entries, 'updated', limit, cursor);

  it('pages newest first (slug breaking ties) with a cursor, null after the last page', () => {
    const first = byUpdated(3);
    expect(first.page.map((s) => s.slug)).toEqual(['a', 'c', 'd']);
    const second = byUpdated(3, first.nextCursor!);
    expect(second).toEqual({ page: [skills[1]], nextCursor: null });
    expect(byUpdated(4).nextCursor).toBeNull();
  });

  it('pages by first publish for createdAt, as clawhub explore asks by default', () => {
    const first = pageByDate(skills, 'createdAt', 2);
    expect(first.page.map((s) => s.slug)).toEqual(['b', 'd']);
    expect(pageByDate(skills, 'createdAt', 2, first.nextCursor!).page.map((s) => s.slug)).toEqual(['c', 'a']);
  });

  it('moves a skill updated between pages to the front instead of showing it twice', () => {
    const first = byUpdated(2);
    const updated = skills.map((s) => (s.slug === 'a' ? { ...s, updatedAt: '2026-02-01T00:00:00.000Z' } : s));
    expect(byUpdated(2, first.nextCursor!, updated).page.map((s) => s.slug)).toEqual(['d', 'b']);
  });

  it("refuses a cursor it did not give, in ClawHub's words: made up, edited, or given for another order", () => {
    const given = byUpdated(2).nextCursor!;
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      'nope',
      encode({ a: 1 }),
      encode([1, 2]),
      encode(['x', 'y']),
      encode(['u', 'yesterday', 'a']),
      encode(['u', '2026-01-03T00:00:00Z', 'a']),
      encode(['u', '2026-01-03T00:00:00.000Z', '../a']),
      encode(['u', '2026-01-03T00:00:00.000Z', 'a', 'extra']),
      `${given}=`,
      `${given}A`,
      pageByDate(skills, 'createdAt', 2).nextCursor!,
    ]) {
      expect(() => byUpdated(2, cursor), cursor).toThrow(expect.objectContaining({ code: 'invalid_request', message: 'Invalid cursor format' }));
    }
    expect(() => byUpdated(2, given)).not.toThrow();
  });

  it('ranks by installs, ties newest first', () => {
    const installs: Record<string, number> = { a: 1, b: 5, c: 1, d: 0 };
    expect(topByInstalls(skills, (s) => installs[s.slug]!, 3).map((s) => s.slug)).toEqual(['b', 'a', 'c']);
  });
});

describe('a ClawHub publish as ours', () => {
  it("reads a new skill's description and category from its SKILL.md", () => {
    const md = (front: string) => [{ filename: 'SKILL.md', content: `---\n${front}---\n# x\n` }];
    expect(listingFromSkillFile(md('name: x\ndescription: >\n  Folds\n  lines\nmetadata:\n  category: Data Tools\n'))).toEqual({
      description: 'Folds lines',
      category: 'data-tools',
    });
    // A literal block keeps its line breaks in SKILL.md; the listing reads it as one line.
    expect(listingFromSkillFile(md('name: x\ndescription: |\n  Keeps\n\n  lines\n'))).toEqual({ description: 'Keeps lines' });
    // No category of its own: the caller files it under the default, as every publish does.
    expect(listingFromSkillFile(md('name: x\ndescription: Plain\n'))).toEqual({ description: 'Plain' });
    expect(listingFromSkillFile(md('name: x\ndescription: Plain\ncategory: Security & Testing\n'))).toEqual({ description: 'Plain' });
    expect(listingFromSkillFile(md('name: x\n'))).toEqual({});
    expect(listingFromSkillFile(md(`name: x\ndescription: ${'d'.repeat(1025)}\n`))).toEqual({});
    expect(listingFromSkillFile([{ filename: 'SKILL.md', content: '# no front matter' }])).toEqual({});
    expect(listingFromSkillFile([])).toEqual({});
    expect(DEFAULT_CATEGORY).toBe('general');
  });
});
