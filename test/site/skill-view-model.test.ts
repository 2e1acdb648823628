import { describe, expect, it } from 'vitest';
import { formatBytes, formatTimestamp, installCommand, skillsCommand } from '../../site/src/lib/format.ts';
import { skillHref, newestUpdate } from '../../site/src/lib/skill-links.ts';
import { skillViewModel } from '../../site/src/lib/skill-view-model.ts';
import type { RegistryDocument } from '#core/registry-document';

const doc = (overrides: Partial<RegistryDocument> = {}): RegistryDocument => ({
  id: 'id-1',
  slug: 'pretty-json',
  name: 'Pretty JSON',
  description: 'Formats JSON',
  category: 'dev-tools',
  author: 'alice',
  paid: false,
  currentVersion: '1.1.0',
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-02T10:00:00.000Z',
  files: [{ filename: 'SKILL.md', size: 1234, sha256: 'x' }],
  versions: [
    { version: '1.1.0', changelog: 'Sorts keys', publishedAt: '2026-11-02T10:00:00.000Z', integrity: 'sha256-a' },
    { version: '1.0.0', changelog: '', publishedAt: '2026-11-01T10:00:00.000Z', integrity: 'sha256-b' },
  ],
  dependencies: { 'b-dep': '^1.0.0', 'a-dep': '~2.1.0' },
  formats: ['agent-skills'],
  delivery: { url: '/api/deliver/id-1', bundle: '/bundles/pretty-json/1.1.0.json' },
  ...overrides,
});

describe('the skill page model', () => {
  it('says what the current version does when run, that a pending one is being observed, and claims nothing when its effects are not known', () => {
    const effects = {
      reads: [{ class: 'cloud-credentials', reason: 'r', target: '~/.aws/credentials', evidence: { file: 'scripts/sync.sh', line: 3 }, source: 'static' }],
      writes: [],
      network: [
        {
          class: 'host',
          reason: 'r',
          target: 'api.example.com',
          host: 'api.example.com',
          protocol: 'tls',
          evidence: { file: 'scripts/sync.sh', line: 7 },
          source: 'static',
        },
        {
          class: 'host',
          reason: 'r',
          target: 'api.example.com',
          host: 'api.example.com',
          protocol: 'tls',
          evidence: { step: 'scripts/sync.sh', event: 'connect api.example.com:443', clock: 'now' },
          source: 'observed',
        },
      ],
      executes: [],
      asks: [],
    };
    const current = (extra: Record<string, unknown>) =>
      doc({ versions: [{ version: '1.1.0', changelog: '', publishedAt: '2026-11-02T10:00:00.000Z', integrity: 'sha256-a', ...extra }] });
    expect(skillViewModel(current({ behaviour: 'cleared', effects }))).toMatchObject({
      hasBehaviour: true,
      behaviourSummary: 'When run, this skill…',
      hasEffects: true,
      effects: [
        { sentence: 'reads your cloud credentials: ~/.aws/credentials', evidence: 'in the text: scripts/sync.sh:3' },
        { sentence: 'connects to api.example.com', evidence: 'in the text: scripts/sync.sh:7; observed: scripts/sync.sh: connect api.example.com:443' },
      ],
    });
    expect(skillViewModel(current({ effects: { reads: [], writes: [], network: [], executes: [], asks: [] } }))).toMatchObject({
      hasBehaviour: true,
      behaviourSummary: 'When run, this skill does nothing outside its own folder.',
      hasEffects: false,
    });
    expect(skillViewModel(current({ behaviour: 'pending' }))).toMatchObject({
      hasBehaviour: true,
      behaviourSummary: 'This version is being observed: what it does when run is not known yet.',
      effects: [],
    });
    expect(skillViewModel(doc())).toMatchObject({ hasBehaviour: false, behaviourSummary: '', effects: [], hasEffects: false });
  });

  it('says where a GitHub import read a version: "imported from owner/repo@sha path", linking the folder at that commit', () => {
    const source = { repo: 'octo/skills', commit: 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00', path: 'skills/pretty json' };
    const model = skillViewModel(
      doc({ versions: [{ version: '1.1.0', changelog: '', publishedAt: '2026-11-02T10:00:00.000Z', integrity: 'sha256-a', source }] }),
    );
    expect(model).toMatchObject({
      hasImportSource: true,
      importSource: 'imported from octo/skills@c0ffee0 skills/pretty json',
      importSourceUrl: 'https://github.com/octo/skills/tree/c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00/skills/pretty%20json',
    });
    expect(model.versions[0]).toMatchObject({ hasImportSource: true, importSource: 'imported from octo/skills@c0ffee0 skills/pretty json' });
    expect(skillViewModel(doc())).toMatchObject({ hasImportSource: false, importSource: '' });
  });

  it('shows what the registry says, with the install command and the current version marked', () => {
    const model = skillViewModel(doc(), 'https://skills.example');
    expect(model).toMatchObject({
      name: 'Pretty JSON',
      install: 'npx -y https://skills.example/cli/skillpress.tgz install pretty-json',
      installSkills: 'npx skills add https://skills.example/skills/pretty-json',
      categoryHref: '/categories/dev-tools/',
      price: 'Free',
      updated: '2026-11-02',
      bundle: '/bundles/pretty-json/1.1.0.json',
      moreVersions: false,
      hasDependencies: true,
    });
    expect(model.versions.map((v) => [v.version, v.current, v.published])).toEqual([
      ['1.1.0', true, '2026-11-02'],
      ['1.0.0', false, '2026-11-01'],
    ]);
    expect(model.files).toEqual([{ filename: 'SKILL.md', size: '1.2 kB' }]);
    expect(model.dependencies.map((d) => d.slug)).toEqual(['a-dep', 'b-dep']);
  });

  it('shows the scan of the current version: its verdict, a sentence and each finding with rule, place and reason', () => {
    const finding = { rule: 'pipe-to-shell', category: 'download-execute', severity: 'high', file: 'SKILL.md', line: 8, message: 'pipes a download' } as const;
    const suspicious = skillViewModel(
      doc({ scan: { verdict: 'suspicious', rulesVersion: '3-abc', findings: [finding, { ...finding, file: 'bin/tool', line: 0 }] } }),
    );
    expect(suspicious).toMatchObject({ scanVerdict: 'suspicious', scanClass: 'badge suspicious', suspicious: true, hasFindings: true });
    expect(suspicious.scanSummary).toBe(
      'Flagged as suspicious (2 findings): read them before you install. The command line installs it only when asked: npx -y http://127.0.0.1:8787/cli/skillpress.tgz install pretty-json --allow-suspicious',
    );
    expect(suspicious.findings).toEqual([
      { rule: 'pipe-to-shell', severity: 'high', severityClass: 'badge severity-high', location: 'SKILL.md:8', message: 'pipes a download' },
      { rule: 'pipe-to-shell', severity: 'high', severityClass: 'badge severity-high', location: 'bin/tool', message: 'pipes a download' },
    ]);
    expect(skillViewModel(doc({ scan: { verdict: 'clean', rulesVersion: '3-abc', findings: [] } }))).toMatchObject({
      scanVerdict: 'clean',
      scanSummary: 'No risky patterns found.',
      suspicious: false,
      hasFindings: false,
    });
    expect(skillViewModel(doc())).toMatchObject({ scanVerdict: 'not scanned', scanClass: 'badge unscanned', findings: [], scanned: '' });
  });

  it('dates the scan: at the current version’s publish, or at the rescan that stored it', () => {
    const scan = { verdict: 'clean' as const, rulesVersion: '3-abc', findings: [] };
    const published = doc({ scan });
    expect(skillViewModel(published).scanned).toBe('Scanned 2026-11-02 with rules 3-abc.');
    const rescanned = doc({ scan, versions: published.versions.map((v) => ({ ...v, scan, scannedAt: '2026-11-20T08:00:00.000Z' })) });
    expect(skillViewModel(rescanned).scanned).toBe('Scanned 2026-11-20 with rules 3-abc.');
  });

  it('offers no viewer for a paid skill and says older versions may exist when the registry lists five', () => {
    const five = Array.from({ length: 5 }, (_, i) => ({
      version: `1.${i}.0`,
      changelog: '',
      publishedAt: `2026-11-0${i + 1}T00:00:00.000Z`,
      integrity: 'sha256-x',
    }));
    const model = skillViewModel(doc({ paid: true, delivery: { url: '/api/deliver/id-1' }, versions: five }));
    expect(model.bundle).toBeUndefined();
    expect(model.price).toBe('Paid');
    expect(model.moreVersions).toBe(true);
    // The skills CLI installs free skills only: no command for it.
    expect(model.installSkills).toBe('');
  });

  it('strikes yanked versions through with their reason, and carries the deprecation message for the banner', () => {
    const model = skillViewModel(
      doc({
        deprecated: 'Use pretty-json-2',
        versions: [
          { version: '1.1.0', changelog: '', publishedAt: '2026-11-02T10:00:00.000Z', integrity: 'sha256-a' },
          { version: '1.0.1', changelog: '', publishedAt: '2026-11-01T12:00:00.000Z', integrity: 'sha256-c', yanked: true },
          { version: '1.0.0', changelog: '', publishedAt: '2026-11-01T10:00:00.000Z', integrity: 'sha256-b', yanked: true, yankReason: 'Broke CRLF files' },
        ],
      }),
    );
    expect(model.deprecated).toBe('Use pretty-json-2');
    expect(model.versions.map((v) => [v.version, v.yanked, v.rowClass, v.yankNote])).toEqual([
      ['1.1.0', false, '', ''],
      ['1.0.1', true, 'yanked', 'Yanked: no reason given. Installed only where a lockfile pins it.'],
      ['1.0.0', true, 'yanked', 'Yanked: Broke CRLF files. Installed only where a lockfile pins it.'],
    ]);
    expect(skillViewModel(doc()).deprecated).toBe('');
  });

  it("shows a paid skill's price and whether it can be bought on its page", () => {
    const priced = skillViewModel(doc({ paid: true, price: { amount: 1299, currency: 'EUR' }, delivery: { url: '/api/deliver/id-1' } }));
    expect(priced).toMatchObject({ id: 'id-1', price: '€12.99', forSale: true, notForSale: false });
    expect(skillViewModel(doc({ paid: true, delivery: { url: '/api/deliver/id-1' } }))).toMatchObject({ price: 'Paid', forSale: false, notForSale: true });
    expect(skillViewModel(doc())).toMatchObject({ price: 'Free', forSale: false, notForSale: false });
  });

  it('links skills newer than the site build to the fallback page', () => {
    const builtFrom = newestUpdate([{ updatedAt: '2026-11-02T00:00:00.000Z' }, { updatedAt: '2026-11-01T00:00:00.000Z' }]);
    expect(builtFrom).toBe('2026-11-02T00:00:00.000Z');
    expect(skillHref({ slug: 'old', updatedAt: '2026-11-01T00:00:00.000Z' }, builtFrom)).toBe('/skills/old/');
    expect(skillHref({ slug: 'new-one', updatedAt: '2026-11-03T00:00:00.000Z' }, builtFrom)).toBe('/skills/_/?slug=new-one');
  });

  it('formats sizes, timestamps and the install command', () => {
    expect([0, 999, 1000, 1234, 56_789, 1_234_567].map(formatBytes)).toEqual(['0 B', '999 B', '1.0 kB', '1.2 kB', '57 kB', '1.2 MB']);
    expect(formatTimestamp('2026-11-01T14:05:09.123Z')).toBe('2026-11-01 14:05 UTC');
    expect(formatTimestamp(null)).toBe('never');
    expect(installCommand('a-b', 'https://skills.example')).toBe('npx -y https://skills.example/cli/skillpress.tgz install a-b');
    expect(skillsCommand('a-b', 'https://skills.example')).toBe('npx skills add https://skills.example/skills/a-b');
  });
});
