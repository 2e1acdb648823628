import { describe, expect, it } from 'vitest';
import { changelogsBetween, parseRequest, resolveVersion, satisfies } from '#cli/version-spec';
import { needsAllVersions } from '#core/version-choice';

const published = ['1.0.0', '1.1.0', '1.1.5', '1.2.0', '2.0.0-beta.1', '0.9.0'].map((version) => ({ version }));

describe('install specs', () => {
  it('reads slug, slug@version, slug@range and slug@latest', () => {
    expect(parseRequest('pretty-json')).toEqual({ slug: 'pretty-json', spec: 'latest' });
    expect(parseRequest('pretty-json@1.2.0')).toEqual({ slug: 'pretty-json', spec: '1.2.0' });
    expect(parseRequest('pretty-json@^1.0.0')).toEqual({ slug: 'pretty-json', spec: '^1.0.0' });
    expect(parseRequest('pretty-json@')).toEqual({ slug: 'pretty-json', spec: 'latest' });
  });

  it('rejects what is not a slug or a range, as a usage error', () => {
    expect(() => parseRequest('Pretty')).toThrow(/skill slug/);
    expect(() => parseRequest('../x')).toThrow(/skill slug/);
    expect(() => parseRequest('x@banana')).toThrow(/neither a version nor a semver range/);
  });
});

describe('range resolution', () => {
  it('takes the current version for latest, whatever was published last', () => {
    expect(resolveVersion('latest', published, '1.2.0')).toBe('1.2.0');
  });

  it('takes the highest match of a range and never a prerelease by default', () => {
    expect(resolveVersion('^1.0.0', published, '1.2.0')).toBe('1.2.0');
    expect(resolveVersion('~1.1', published, '1.2.0')).toBe('1.1.5');
    expect(resolveVersion('>=1', published, '1.2.0')).toBe('1.2.0');
    expect(resolveVersion('^0.9.0', published, '1.2.0')).toBe('0.9.0');
    expect(resolveVersion('^3.0.0', published, '1.2.0')).toBeNull();
  });

  it('installs an exact version, prereleases included, only if it exists', () => {
    expect(resolveVersion('1.1.0', published, '1.2.0')).toBe('1.1.0');
    expect(resolveVersion('2.0.0-beta.1', published, '1.2.0')).toBe('2.0.0-beta.1');
    expect(resolveVersion('1.3.0', published, '1.2.0')).toBeNull();
  });

  it('never picks a yanked version for a range, but installs one asked for by its exact version', () => {
    const withYanked = published.map((v) => (v.version === '1.2.0' || v.version === '0.9.0' ? { ...v, yanked: true } : v));
    expect(resolveVersion('^1.0.0', withYanked, '1.1.5')).toBe('1.1.5');
    expect(resolveVersion('>=1', withYanked, '1.1.5')).toBe('1.1.5');
    expect(resolveVersion('^0.9.0', withYanked, '1.1.5')).toBeNull();
    expect(resolveVersion('latest', withYanked, '1.1.5')).toBe('1.1.5');
    expect(resolveVersion('1.2.0', withYanked, '1.1.5')).toBe('1.2.0');
  });

  it('picks the newest cleared version for latest and ranges, a pending one only when allowed, a refused one never', () => {
    const observed = [
      { version: '1.0.0' },
      { version: '1.1.0', behaviour: 'cleared' },
      { version: '1.2.0', behaviour: 'refused' },
      { version: '1.3.0', behaviour: 'pending' },
    ];
    expect(resolveVersion('latest', observed, '1.3.0')).toBe('1.1.0');
    expect(resolveVersion('^1.0.0', observed, '1.3.0')).toBe('1.1.0');
    expect(resolveVersion('latest', observed, '1.3.0', { allowPending: true })).toBe('1.3.0');
    expect(resolveVersion('^1.2.0', observed, '1.3.0', { allowPending: true })).toBe('1.3.0');
    expect(resolveVersion('~1.2.0', observed, '1.3.0', { allowPending: true })).toBeNull();
    expect(resolveVersion('latest', [{ version: '1.0.0', behaviour: 'pending' }], '1.0.0')).toBeNull();
  });

  it('resolves an exact version whatever its behaviour: the user named it', () => {
    const observed = [{ version: '1.0.0' }, { version: '1.2.0', behaviour: 'refused' }, { version: '1.3.0', behaviour: 'pending' }];
    expect(resolveVersion('1.3.0', observed, '1.3.0')).toBe('1.3.0');
    expect(resolveVersion('1.2.0', observed, '1.3.0')).toBe('1.2.0');
  });

  it('keeps an installed pending version rather than moving down to an older cleared one', () => {
    const observed = [{ version: '1.0.0' }, { version: '2.0.0', behaviour: 'pending' }];
    expect(resolveVersion('latest', observed, '2.0.0', { installed: '2.0.0' })).toBe('2.0.0');
    expect(resolveVersion('latest', [{ version: '1.0.0' }, { version: '2.0.0', behaviour: 'refused' }], '2.0.0', { installed: '2.0.0' })).toBe('1.0.0');
  });

  it('needs every version for latest when the current one may not be picked', () => {
    expect(needsAllVersions('latest', [{ version: '1.3.0', behaviour: 'pending' }], '1.3.0')).toBe(true);
    expect(needsAllVersions('latest', [{ version: '1.3.0', behaviour: 'pending' }], '1.3.0', true)).toBe(false);
    expect(needsAllVersions('latest', [{ version: '1.3.0' }], '1.3.0')).toBe(false);
  });

  it('lets a range that names a prerelease pick it', () => {
    expect(resolveVersion('>=2.0.0-beta.0', published, '1.2.0')).toBe('2.0.0-beta.1');
  });

  it('says whether an installed version still answers a spec', () => {
    expect(satisfies('1.1.5', '~1.1')).toBe(true);
    expect(satisfies('1.2.0', '~1.1')).toBe(false);
    expect(satisfies('2.0.0-beta.1', 'latest')).toBe(true);
    expect(satisfies('2.0.0-beta.1', '^2.0.0-beta.1')).toBe(true);
  });
});

describe('changelogs between two versions', () => {
  const versions = published.map(({ version }) => ({ version, changelog: `notes ${version}`, publishedAt: '2026-01-01T00:00:00.000Z' }));

  it('lists every release above the installed one up to the target, oldest first', () => {
    expect(changelogsBetween(versions, '1.0.0', '1.2.0').map((v) => v.version)).toEqual(['1.1.0', '1.1.5', '1.2.0']);
  });

  it('leaves prereleases out unless the target is one', () => {
    expect(changelogsBetween([...versions, { version: '1.2.0-rc.1', changelog: '', publishedAt: '' }], '1.1.5', '1.2.0').map((v) => v.version)).toEqual([
      '1.2.0',
    ]);
    expect(changelogsBetween(versions, '1.2.0', '2.0.0-beta.1').map((v) => v.version)).toEqual(['2.0.0-beta.1']);
  });

  it('shows nothing for a downgrade or no change', () => {
    expect(changelogsBetween(versions, '1.2.0', '1.0.0')).toEqual([]);
    expect(changelogsBetween(versions, '1.2.0', '1.2.0')).toEqual([]);
  });
});
