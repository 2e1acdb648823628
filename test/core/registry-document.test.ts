import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '#core/canonical-json';
import { catalogDocument, catalogEntry, discoveryDocument, discoveryEntry, inSharedIndexes, skillMdEntry } from '#core/catalog';
import { registryDocument, registryDocuments, type SkillFacts, type VersionFacts, versionsDocument } from '#core/registry-document';
import { skillArchive } from '#core/skill-archive';
import { decodeFile, sha256Hex } from '#core/bundle';
import { headersForKey, keyForPath, siteKeyForPath, skillSlugOfPath } from '#core/static-paths';
import { catalogDocumentSchema, discoveryDocumentSchema, quarantinedDocumentSchema, registryDocumentSchema, versionsDocumentSchema } from '#core/schemas';
import type { ScanResult } from '#core/scan/finding';
import { Parser } from 'tar';

const skill = (overrides: Partial<SkillFacts> = {}): SkillFacts => ({
  id: 'id-1',
  slug: 'pretty-json',
  name: 'Pretty JSON',
  description: 'Formats JSON',
  category: 'dev-tools',
  authorLogin: 'alice',
  paid: false,
  formats: ['agent-skills'],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-09T00:00:00.000Z',
  ...overrides,
});

const version = (v: string, day: number, extra: Partial<VersionFacts> = {}): VersionFacts => ({
  version: v,
  changelog: `notes ${v}`,
  publishedAt: `2026-01-${String(day).padStart(2, '0')}T00:00:00.000Z`,
  files: [{ filename: 'SKILL.md', size: 3, sha256: `sha-${v}` }],
  dependencies: { [`dep-of-${v.replaceAll('.', '-')}`]: '^1.0.0' },
  integrity: `sha256-${v}`,
  ...extra,
});

describe('registry document', () => {
  const versions = ['1.0.0', '1.1.0', '1.2.0', '2.0.0', '2.1.0', '2.2.0', '1.2.1'].map((v, i) => version(v, i + 1));

  it("carries a paid skill's price, in the registry document and the catalog, and never a free skill's", () => {
    const price = { amount: 999, currency: 'EUR' };
    const paid = skill({ paid: true, price });
    expect(registryDocument(paid, versions).price).toEqual(price);
    expect(catalogEntry(paid, '2.2.0').price).toEqual(price);
    expect(registryDocumentSchema.parse(registryDocument(paid, versions)).price).toEqual(price);
    expect(catalogDocumentSchema.parse(catalogDocument([catalogEntry(paid, '2.2.0')], 'now')).skills[0]!.price).toEqual(price);
    expect('price' in registryDocument(skill({ paid: false, price }), versions)).toBe(false);
    expect('price' in catalogEntry(skill({ paid: true }), '2.2.0')).toBe(false);
  });

  it("is exactly what the readers' schemas parse, for free and paid skills (the site and CLI rely on it)", () => {
    for (const paid of [false, true]) {
      const doc = registryDocument(skill({ paid }), versions);
      expect(registryDocumentSchema.parse(doc)).toEqual(doc);
      const all = versionsDocument(skill({ paid }), versions);
      expect(versionsDocumentSchema.parse(all)).toEqual(all);
    }
    const catalog = catalogDocument([catalogEntry(skill(), '2.2.0')], '2026-01-10T00:00:00.000Z');
    expect(catalogDocumentSchema.parse(JSON.parse(canonicalJson(catalog)))).toEqual(catalog);
  });

  it('lists the 5 most recently published versions, newest first, with changelogs', () => {
    const doc = registryDocument(skill(), versions);
    expect(doc.versions.map((v) => v.version)).toEqual(['1.2.1', '2.2.0', '2.1.0', '2.0.0', '1.2.0']);
    expect(doc.versions[0]).toEqual({
      version: '1.2.1',
      changelog: 'notes 1.2.1',
      publishedAt: '2026-01-07T00:00:00.000Z',
      publishedBy: 'alice',
      integrity: 'sha256-1.2.1',
    });
  });

  it('names who published each version, and the owner: a user until an organisation owns it', () => {
    const byBob = versions.map((v) => (v.version === '2.2.0' ? { ...v, publishedBy: 'bob' } : v));
    const before = registryDocument(skill(), byBob);
    // A skill stored before owners were recorded is its author's; versions without a publisher are the author's too.
    expect([before.author, before.owner, before.visibility]).toEqual(['alice', { type: 'user', login: 'alice' }, 'public']);
    expect(before.versions.map((v) => [v.version, v.publishedBy])).toEqual([
      ['1.2.1', 'alice'],
      ['2.2.0', 'bob'],
      ['2.1.0', 'alice'],
      ['2.0.0', 'alice'],
      ['1.2.0', 'alice'],
    ]);
    const orgOwned = skill({ owner: { type: 'org', login: 'Acme' } });
    const doc = registryDocument(orgOwned, byBob);
    expect([doc.author, doc.owner]).toEqual(['Acme', { type: 'org', login: 'Acme' }]);
    expect(versionsDocument(orgOwned, byBob).versions.find((v) => v.version === '2.2.0')?.publishedBy).toBe('bob');
    const entry = catalogEntry(orgOwned, '2.2.0');
    expect([entry.author, entry.owner, 'visibility' in entry]).toEqual(['Acme', { type: 'org', login: 'Acme' }, false]);
  });

  it('takes files and dependencies from the current version, the highest release', () => {
    const doc = registryDocument(skill(), [...versions, version('3.0.0-rc.1', 20)]);
    expect(doc.currentVersion).toBe('2.2.0');
    expect(doc.files).toEqual([{ filename: 'SKILL.md', size: 3, sha256: 'sha-2.2.0' }]);
    expect(doc.dependencies).toEqual({ 'dep-of-2-2-0': '^1.0.0' });
  });

  it('points public free skills at their bundle, and paid or private skills, whose bundles are never written, only at delivery', () => {
    expect(registryDocument(skill(), versions).delivery).toEqual({ url: '/api/deliver/id-1', bundle: '/bundles/pretty-json/2.2.0.json' });
    expect(registryDocument(skill({ paid: true }), versions).delivery).toEqual({ url: '/api/deliver/id-1' });
    expect(registryDocument(skill({ visibility: 'private', owner: { type: 'org', login: 'acme' } }), versions).delivery).toEqual({ url: '/api/deliver/id-1' });
  });

  it('matches the published schema exactly (no extra fields)', () => {
    expect(z.strictObject(registryDocumentSchema.shape).safeParse(registryDocument(skill({ paid: true }), versions)).success).toBe(true);
    expect(z.strictObject(versionsDocumentSchema.shape).safeParse(versionsDocument(skill(), versions)).success).toBe(true);
  });

  it('has exactly the fields of docs/api.md §11.2', () => {
    expect(Object.keys(registryDocument(skill(), versions)).sort()).toEqual(
      [
        'id',
        'slug',
        'name',
        'description',
        'category',
        'author',
        'owner',
        'visibility',
        'paid',
        'currentVersion',
        'createdAt',
        'updatedAt',
        'files',
        'versions',
        'dependencies',
        'formats',
        'delivery',
      ].sort(),
    );
  });

  it("carries each version's scan in its entry, and the current version's at the top level", () => {
    const scanOf = (verdict: ScanResult['verdict']): ScanResult => ({ verdict, rulesVersion: '1-abc', findings: [] });
    const scanned = versions.map((v) => ({ ...v, scan: scanOf(v.version === '2.2.0' ? 'suspicious' : 'clean') }));
    const doc = registryDocument(skill(), scanned);
    expect(doc.scan).toEqual(scanOf('suspicious'));
    expect(doc.versions.map((v) => [v.version, v.scan?.verdict])).toEqual([
      ['1.2.1', 'clean'],
      ['2.2.0', 'suspicious'],
      ['2.1.0', 'clean'],
      ['2.0.0', 'clean'],
      ['1.2.0', 'clean'],
    ]);
    expect(versionsDocument(skill(), scanned).versions.every((v) => v.scan !== undefined)).toBe(true);
    // When each scan ran: at publish, unless a rescan stored it later.
    const rescanned = scanned.map((v) => (v.version === '2.0.0' ? { ...v, scannedAt: '2027-01-01T00:00:00.000Z' } : v));
    expect(registryDocument(skill(), rescanned).versions.map((v) => v.scannedAt)).toEqual(
      registryDocument(skill(), scanned).versions.map((v) => (v.version === '2.0.0' ? '2027-01-01T00:00:00.000Z' : v.publishedAt)),
    );
    expect(z.strictObject(registryDocumentSchema.shape).parse(doc)).toEqual(doc);
    // Versions published before scanning have none, and the documents say nothing about them.
    expect('scan' in registryDocument(skill(), versions)).toBe(false);
  });

  it('keeps only who a quarantined skill is, in both registry paths', () => {
    const quarantined = skill({ quarantine: { reason: 'three reports', since: '2026-02-01T00:00:00.000Z' } });
    const documents = registryDocuments(quarantined, versions);
    const stub = { id: 'id-1', slug: 'pretty-json', name: 'Pretty JSON', author: 'alice', status: 'quarantined' };
    expect(documents).toEqual({ registry: stub, versions: stub });
    expect(z.strictObject(quarantinedDocumentSchema.shape).parse(documents.registry)).toEqual(stub);
    expect(registryDocuments(skill(), versions)).toEqual({ registry: registryDocument(skill(), versions), versions: versionsDocument(skill(), versions) });
  });

  it('serialises to the same bytes whatever order the versions come in', () => {
    const shuffled = [...versions].reverse();
    expect(canonicalJson(registryDocument(skill(), shuffled))).toBe(canonicalJson(registryDocument(skill(), versions)));
    expect(canonicalJson(versionsDocument(skill(), shuffled))).toBe(canonicalJson(versionsDocument(skill(), versions)));
  });

  it('lists every version in the versions document', () => {
    const doc = versionsDocument(skill(), versions);
    expect(doc.versions).toHaveLength(7);
    expect(doc.currentVersion).toBe('2.2.0');
  });

  it('never makes a yanked version current, and lists it with yanked and its reason', () => {
    const yanked = versions.map((v) => (v.version === '2.2.0' ? { ...v, yanked: true, yankReason: 'leaks tokens' } : v));
    const doc = registryDocument(skill(), yanked);
    expect(doc.currentVersion).toBe('2.1.0');
    expect(doc.files).toEqual([{ filename: 'SKILL.md', size: 3, sha256: 'sha-2.1.0' }]);
    expect(doc.delivery.bundle).toBe('/bundles/pretty-json/2.1.0.json');
    expect(doc.versions.find((v) => v.version === '2.2.0')).toEqual({
      version: '2.2.0',
      changelog: 'notes 2.2.0',
      publishedAt: '2026-01-06T00:00:00.000Z',
      publishedBy: 'alice',
      integrity: 'sha256-2.2.0',
      yanked: true,
      yankReason: 'leaks tokens',
    });
    expect(doc.versions.find((v) => v.version === '2.1.0')).not.toHaveProperty('yanked');
    const all = versionsDocument(skill(), yanked);
    expect(all.currentVersion).toBe('2.1.0');
    expect(versionsDocumentSchema.parse(all)).toEqual(all);
    const noReason = registryDocument(
      skill(),
      versions.map((v) => (v.version === '1.0.0' ? { ...v, yanked: true } : v)),
    );
    expect(
      versionsDocument(
        skill(),
        versions.map((v) => (v.version === '1.0.0' ? { ...v, yanked: true } : v)),
      ).versions.at(-1),
    ).toMatchObject({ yanked: true });
    expect(noReason.currentVersion).toBe('2.2.0');
  });

  it('falls back to the highest release when racing yanks left none standing, rather than fail', () => {
    const all = [version('1.0.0', 1, { yanked: true }), version('2.0.0', 2, { yanked: true })];
    expect(registryDocument(skill(), all).currentVersion).toBe('2.0.0');
  });

  it('carries the deprecation message, in the registry document and the catalog, only when set', () => {
    const doc = registryDocument(skill({ deprecated: 'Use pretty-json-2' }), versions);
    expect(doc.deprecated).toBe('Use pretty-json-2');
    expect(registryDocumentSchema.parse(doc)).toEqual(doc);
    expect(registryDocument(skill(), versions)).not.toHaveProperty('deprecated');
    expect(catalogEntry(skill({ deprecated: 'Use pretty-json-2' }), '2.2.0').deprecated).toBe('Use pretty-json-2');
    expect(catalogEntry(skill(), '2.2.0')).not.toHaveProperty('deprecated');
  });
});

describe('catalog and discovery index', () => {
  it('sorts the catalog by slug and counts it', () => {
    const entries = ['zeta', 'alpha', 'mid'].map((slug) => catalogEntry(skill({ slug, id: slug }), '1.0.0'));
    const doc = catalogDocument(entries, '2026-01-01T00:00:00.000Z');
    expect(doc.skills.map((s) => s.slug)).toEqual(['alpha', 'mid', 'zeta']);
    expect(doc).toMatchObject({ schemaVersion: 1, generatedAt: '2026-01-01T00:00:00.000Z', count: 3 });
    expect(catalogDocumentSchema.safeParse(doc).success).toBe(true);
    expect(doc.skills[0]).toEqual({
      id: 'alpha',
      slug: 'alpha',
      name: 'Pretty JSON',
      description: 'Formats JSON',
      category: 'dev-tools',
      author: 'alice',
      owner: { type: 'user', login: 'alice' },
      currentVersion: '1.0.0',
      paid: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-09T00:00:00.000Z',
      registry: '/api/registry/alpha',
      verdict: 'clean',
    });
  });

  it('gives each catalog entry the verdict its current version stands under, and lists it whatever that is', () => {
    const scan = (verdict: ScanResult['verdict'], reviewed?: ScanResult['reviewed']): ScanResult => ({
      verdict,
      rulesVersion: '1',
      findings: [],
      ...(reviewed ? { reviewed } : {}),
    });
    expect(catalogEntry(skill(), '1.0.0', { scan: scan('suspicious') }).verdict).toBe('suspicious');
    expect(catalogEntry(skill(), '1.0.0', { scan: scan('suspicious', { by: 'root', at: '2026-01-01T00:00:00.000Z' }) }).verdict).toBe('clean');
    expect(catalogEntry(skill(), '1.0.0', { scan: scan('clean') }).verdict).toBe('clean');
    // What the version did when run counts as much as what its text looked like.
    const ran = { verdict: 'suspicious' as const, evidence: [{ rule: 'persistence', verdict: 'suspicious' as const }] };
    expect(catalogEntry(skill(), '1.0.0', { scan: scan('clean'), observation: ran }).verdict).toBe('suspicious');
  });

  it('keeps a skill that is not clean out of the shared indexes: its own entry carries the verdict and a warning first in its description', () => {
    const suspicious: ScanResult = { verdict: 'suspicious', rulesVersion: '1', findings: [] };
    const entry = skillMdEntry(skill({ deprecated: 'Use pretty-json-2' }), '2.0.0', 'cd'.repeat(32), 'Checks spelling', { scan: suspicious });
    expect(entry).toMatchObject({ verdict: 'suspicious', type: 'skill-md' });
    expect(entry.description).toMatch(/^\[suspicious: [^\]]+\] \[deprecated: Use pretty-json-2\] Checks spelling$/);
    expect(discoveryDocumentSchema.safeParse(discoveryDocument([entry])).success).toBe(true);
    expect(inSharedIndexes(entry)).toBe(false);
    expect(inSharedIndexes(discoveryEntry(skill(), '2.0.0', 'cd'.repeat(32), 'Checks spelling', { scan: { ...suspicious, verdict: 'clean' } }))).toBe(true);
  });

  it('cuts a description to the 1,024 characters discovery clients take, warnings included', () => {
    const entry = discoveryEntry(skill({ deprecated: 'gone' }), '1.0.0', 'ab'.repeat(32), 'x'.repeat(1024));
    expect(entry.description).toHaveLength(1024);
    expect(entry.description).toMatch(/^\[deprecated: gone\] x+…$/);
  });

  it('describes free skills as archives with sha256 digests', () => {
    const doc = discoveryDocument([discoveryEntry(skill({ description: 'the listing says this' }), '1.2.0', 'ab'.repeat(32), 'Formats JSON')]);
    expect(discoveryDocumentSchema.safeParse(doc).success).toBe(true);
    expect(doc).toEqual({
      $schema: 'https://schemas.agentskills.io/discovery/0.2.0/schema.json',
      skills: [
        {
          name: 'pretty-json',
          type: 'archive',
          description: 'Formats JSON',
          url: '/.well-known/agent-skills/pretty-json/1.2.0.tar.gz',
          digest: `sha256:${'ab'.repeat(32)}`,
          version: '1.2.0',
        },
      ],
    });
  });

  it('describes a version that is its SKILL.md alone as that file, with its digest', () => {
    const doc = discoveryDocument([skillMdEntry(skill(), '2.0.0', 'cd'.repeat(32), 'Checks spelling')]);
    expect(discoveryDocumentSchema.safeParse(doc).success).toBe(true);
    expect(doc.skills).toEqual([
      {
        name: 'pretty-json',
        type: 'skill-md',
        description: 'Checks spelling',
        url: '/.well-known/agent-skills/pretty-json/2.0.0/SKILL.md',
        digest: `sha256:${'cd'.repeat(32)}`,
        version: '2.0.0',
      },
    ]);
  });
});

describe('skill archives', () => {
  const files = [
    decodeFile({ filename: 'scripts/run.sh', content: 'echo hi\n' })!,
    decodeFile({ filename: 'SKILL.md', content: '# Skill\n' })!,
    decodeFile({ filename: `deep/${'x'.repeat(150)}.md`, content: 'long' })!,
  ];

  it('is byte-identical across builds and input orders', () => {
    expect(sha256Hex(skillArchive(files))).toBe(sha256Hex(skillArchive([...files].reverse())));
  });

  it('is a tar with SKILL.md at the root, sorted paths and long names intact', async () => {
    const entries: { path: string; size: number; mtime: number; body: string }[] = [];
    const parser = new Parser({
      onReadEntry: (entry) => {
        let body = '';
        entry.on('data', (chunk: Buffer) => (body += chunk.toString()));
        entry.on('end', () => entries.push({ path: entry.path, size: entry.size ?? 0, mtime: entry.mtime?.getTime() ?? -1, body }));
      },
    });
    await new Promise<void>((resolve, reject) => {
      parser.on('end', resolve);
      parser.on('error', reject);
      parser.end(Buffer.from(skillArchive(files)));
    });
    expect(entries.map((e) => e.path)).toEqual(['SKILL.md', `deep/${'x'.repeat(150)}.md`, 'scripts/run.sh']);
    expect(entries[0]).toEqual({ path: 'SKILL.md', size: 8, mtime: 0, body: '# Skill\n' });
  });

  it('stores executable files with mode 0755 and the others with 0644', async () => {
    const modes = new Map<string, number>();
    const parser = new Parser({
      onReadEntry: (entry) => {
        modes.set(entry.path, entry.mode ?? -1);
        entry.resume();
      },
    });
    const withScript = [decodeFile({ filename: 'scripts/run.sh', content: 'echo hi\n', executable: true })!, files[1]!];
    await new Promise<void>((resolve, reject) => {
      parser.on('end', resolve);
      parser.on('error', reject);
      parser.end(Buffer.from(skillArchive(withScript)));
    });
    expect(Object.fromEntries(modes)).toEqual({ 'SKILL.md': 0o644, 'scripts/run.sh': 0o755 });
  });
});

describe('static paths', () => {
  it.each([
    ['/api/registry/pretty-json', 'registry/pretty-json.json'],
    ['/api/registry/pretty-json/versions', 'registry/pretty-json/versions.json'],
    ['/.well-known/skills.json', '.well-known/skills.json'],
    ['/.well-known/agent-skills/index.json', '.well-known/agent-skills/index.json'],
    ['/.well-known/agent-skills/a/1.0.0.tar.gz', '.well-known/agent-skills/a/1.0.0.tar.gz'],
    ['/.well-known/agent-skills/a/1.0.0/SKILL.md', '.well-known/agent-skills/a/1.0.0/SKILL.md'],
    ['/bundles/a/1.0.0.json', 'bundles/a/1.0.0.json'],
  ])('serves %s from %s', (path, key) => {
    expect(keyForPath(path)).toBe(key);
  });

  it.each([
    '/api/registry/../secret',
    '/api/registry/UPPER',
    '/bundles/../../etc/passwd',
    '/bundles/a%2F..',
    '/api/registry/a/b',
    '/.well-known/other.json',
    '/anything',
  ])('maps nothing for %s', (path) => {
    expect(keyForPath(path)).toBeUndefined();
  });

  it.each([
    ['/', 'index.html'],
    ['/skills/pretty-json/', 'skills/pretty-json/index.html'],
    ['/skills/pretty-json', 'skills/pretty-json/index.html'],
    ['/categories/data/2/', 'categories/data/2/index.html'],
    ['/_astro/page.C9Yg6hkc.js', '_astro/page.C9Yg6hkc.js'],
    ['/favicon.svg', 'favicon.svg'],
  ])('serves the site page %s from %s', (path, key) => {
    expect(siteKeyForPath(path)).toBe(key);
  });

  it.each(['/api/me', '/api', '/registry/a.json', '/bundles/a/1.0.0.json', '/.well-known/skills.json', '/_site/manifest.json', '/a/../b', '//x', '/a b'])(
    'maps no site page for %s',
    (path) => {
      expect(siteKeyForPath(path)).toBeUndefined();
    },
  );

  it('knows a skill page path by its slug', () => {
    expect(skillSlugOfPath('/skills/pretty-json/')).toBe('pretty-json');
    expect(skillSlugOfPath('/skills/pretty-json')).toBe('pretty-json');
    expect(skillSlugOfPath('/skills/')).toBeUndefined();
    expect(skillSlugOfPath('/skills/a/b/')).toBeUndefined();
    expect(skillSlugOfPath('/skills/Upper/')).toBeUndefined();
  });

  it('gives site pages 5 minutes, hashed assets a year, and each file its type', () => {
    expect(headersForKey('skills/a/index.html')).toEqual({ contentType: 'text/html; charset=utf-8', cacheControl: 'public, max-age=300' });
    expect(headersForKey('_astro/x.abc.js')).toEqual({ contentType: 'text/javascript; charset=utf-8', cacheControl: 'public, max-age=31536000, immutable' });
    expect(headersForKey('favicon.svg').contentType).toBe('image/svg+xml');
    expect(headersForKey('registry/a.json').cacheControl).toBe('public, max-age=60, s-maxage=300, stale-while-revalidate=60');
    expect(headersForKey('bundles/a/1.0.0.json')).toEqual({ contentType: 'application/json', cacheControl: 'public, max-age=31536000, immutable' });
    expect(headersForKey('.well-known/agent-skills/a/1.0.0.tar.gz')).toEqual({
      contentType: 'application/gzip',
      cacheControl: 'public, max-age=31536000, immutable',
    });
    expect(headersForKey('.well-known/agent-skills/a/1.0.0/SKILL.md')).toEqual({
      contentType: 'text/markdown; charset=utf-8',
      cacheControl: 'public, max-age=31536000, immutable',
    });
    // Only a discovery artifact is immutable: a page the site might one day name SKILL.md is not.
    expect(headersForKey('docs/SKILL.md').cacheControl).toBe('public, max-age=300');
  });
});
