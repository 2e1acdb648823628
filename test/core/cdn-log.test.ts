import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CDN_LOG_FIELDS, type CdnLogRecord, formatCdnLogRecord, installedSlugOfPath, installOfRecord, parseCdnLogRecord } from '#core/cdn-log';
import { BUNDLE_INSTALL_MARK } from '#core/static-paths';

const record = (overrides: Partial<CdnLogRecord> = {}): CdnLogRecord => ({
  at: Date.parse('2026-11-27T10:00:00.123Z'),
  address: '198.51.100.7',
  status: 200,
  method: 'GET',
  path: '/.well-known/agent-skills/pdf-tools/1.2.0.tar.gz',
  query: 'via=skill-index',
  userAgent: 'node',
  requestId: 'Zx1-abc_DEF==',
  headers: { host: 'skills.example', 'user-agent': 'node' },
  ...overrides,
});

describe('the CDN log line', () => {
  it('has CloudFront’s fields in the configured order, tab-separated, text URL-encoded', () => {
    const line = formatCdnLogRecord(record({ userAgent: 'Mozilla/5.0 (X11; Linux)' }));
    const fields = line.split('\t');
    expect(fields).toHaveLength(CDN_LOG_FIELDS.length);
    expect(fields.slice(0, 5)).toEqual(['1795773600.123', '198.51.100.7', '200', 'GET', '/.well-known/agent-skills/pdf-tools/1.2.0.tar.gz']);
    expect(fields[5]).toBe('Mozilla%2F5.0%20(X11%3B%20Linux)');
  });

  it('reads back what it writes, whatever the user agent and headers hold', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.dictionary(
          fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
          fc.string().map((v) => v.trim().replace(/\n/g, ' ')),
        ),
        fc.string(),
        (agent, headers, query) => {
          const written = record({ userAgent: agent || undefined, headers, query: query || undefined });
          const read = parseCdnLogRecord(formatCdnLogRecord(written));
          expect(read).toEqual({ ...written, ...(agent ? {} : { userAgent: undefined }), ...(query ? {} : { query: undefined }) });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a line that is not a whole record, without throwing', () => {
    for (const line of ['', 'garbage', '1\t2\t3', formatCdnLogRecord(record()).replace('200', 'ok'), `${formatCdnLogRecord(record())}\textra`]) {
      expect(parseCdnLogRecord(line), line).toBeUndefined();
    }
    expect(parseCdnLogRecord(formatCdnLogRecord(record()).replace('/.well-known', '/%E0%A4%A'))).toBeUndefined();
  });
});

describe('which records are installs', () => {
  it('counts a GET answered 200 of an archive or a version’s SKILL.md named by a skill’s own index, or of the unversioned SKILL.md', () => {
    for (const [path, query] of [
      ['/.well-known/agent-skills/pdf-tools/1.2.0.tar.gz', 'via=skill-index'],
      ['/.well-known/agent-skills/pdf-tools/1.2.0/SKILL.md', 'via=skill-index'],
      ['/.well-known/agent-skills/pdf-tools/SKILL.md', undefined],
      ['/.well-known/skills/pdf-tools/SKILL.md', undefined],
    ] as const) {
      expect(installOfRecord(record({ path, ...(query ? { query } : {}) })), path).toEqual({
        slug: 'pdf-tools',
        at: record().at,
        address: '198.51.100.7',
        userAgent: 'node',
        requestId: 'Zx1-abc_DEF==',
      });
    }
  });

  it('never counts an archive or a version’s SKILL.md named by the shared index, which skills add <origin> downloads whole, --list too', () => {
    for (const path of ['/.well-known/agent-skills/pdf-tools/1.2.0.tar.gz', '/.well-known/agent-skills/pdf-tools/1.2.0/SKILL.md']) {
      expect(installOfRecord(record({ path, query: undefined })), path).toBeUndefined();
      expect(installOfRecord(record({ path, query: 'via=other' })), path).toBeUndefined();
    }
  });

  it('never counts a HEAD, a 304, an error, an update check, the index or a path naming no skill', () => {
    expect(installOfRecord(record({ method: 'HEAD' }))).toBeUndefined();
    expect(installOfRecord(record({ status: 304 }))).toBeUndefined();
    expect(installOfRecord(record({ status: 404 }))).toBeUndefined();
    expect(installOfRecord(record({ status: 206 }))).toBeUndefined();
    expect(installOfRecord(record({ headers: { 'x-skills-update-check': '1' } }))).toBeUndefined();
    for (const path of [
      '/.well-known/agent-skills/index.json',
      '/.well-known/agent-skills/Pdf/1.0.0.tar.gz',
      '/.well-known/agent-skills/../x/SKILL.md',
      '/bundles/Pdf/1.0.0.json',
      '/bundles/pdf-tools/1.0.0/x.json',
      '/bundles/pdf-tools.json',
    ]) {
      expect(installedSlugOfPath(path), path).toBeUndefined();
    }
  });

  it('counts a GET answered 200 of a bundle that carries the install mark: how skillpress install downloads a free version', () => {
    const bundle = record({ path: '/bundles/pdf-tools/1.2.0.json', query: BUNDLE_INSTALL_MARK, userAgent: 'skillpress-cli/0.1.0 node/22.1.0' });
    expect(installedSlugOfPath(bundle.path)).toBe('pdf-tools');
    expect(installOfRecord(bundle)).toEqual({
      slug: 'pdf-tools',
      at: bundle.at,
      address: '198.51.100.7',
      userAgent: 'skillpress-cli/0.1.0 node/22.1.0',
      requestId: 'Zx1-abc_DEF==',
    });
  });

  it('never counts a bundle without the mark (a mirror, the site, anyone reading files), nor its HEAD, 304 or error', () => {
    const bundle = record({ path: '/bundles/pdf-tools/1.2.0.json', query: BUNDLE_INSTALL_MARK });
    for (const query of [undefined, 'via=skill-index', 'via=other']) expect(installOfRecord({ ...bundle, query }), String(query)).toBeUndefined();
    expect(installOfRecord({ ...bundle, method: 'HEAD' })).toBeUndefined();
    expect(installOfRecord({ ...bundle, status: 304 })).toBeUndefined();
    expect(installOfRecord({ ...bundle, status: 404 })).toBeUndefined();
  });
});
