import { describe, expect, it } from 'vitest';
import { assertStrictVersion, becomesCurrent, byPrecedenceDesc, currentOf, releaseKey } from '#core/semver-order';

describe('strict versions', () => {
  it.each(['1.0.0', '0.0.1', '10.20.30', '1.0.0-alpha.1', '1.2.3-rc.1'])('accepts %s', (v) => {
    expect(assertStrictVersion(v)).toBe(v);
  });

  it.each(['v1.0.0', '1.0', '1', ' 1.0.0', '1.0.0 ', '=1.0.0', '01.0.0', '1.0.0+build.1', 'latest', '', '1.0.0-'])('rejects %j with invalid_request', (v) => {
    expect(() => assertStrictVersion(v)).toThrowError(expect.objectContaining({ code: 'invalid_request' }));
  });
});

describe('the latest rule', () => {
  it('makes a higher release current', () => {
    expect(becomesCurrent('1.1.0', '1.0.0')).toBe(true);
    expect(becomesCurrent('2.0.0', '1.9.9')).toBe(true);
  });

  it('keeps the current version for a backport or a prerelease', () => {
    expect(becomesCurrent('1.0.1', '2.0.0')).toBe(false);
    expect(becomesCurrent('3.0.0-rc.1', '2.0.0')).toBe(false);
    expect(becomesCurrent('2.0.0', '2.0.0')).toBe(false);
  });

  it('picks the highest release of a set whatever the publish order', () => {
    expect(currentOf(['1.0.0', '1.10.0', '1.9.0', '2.0.0-beta.1', '1.2.0'])).toBe('1.10.0');
    expect(currentOf(['1.0.0-rc.1'])).toBeUndefined();
  });

  it('sorts versions by descending precedence', () => {
    expect(['1.0.0', '1.10.0', '1.2.0', '1.10.0-rc.1'].sort(byPrecedenceDesc)).toEqual(['1.10.0', '1.10.0-rc.1', '1.2.0', '1.0.0']);
  });
});

describe('releaseKey', () => {
  it('sorts as strings exactly like semver precedence', () => {
    const versions = ['1.0.0', '1.10.0', '1.9.0', '10.0.0', '2.0.0', '0.0.1', '1.0.10', '1.0.9'];
    const byKey = [...versions].sort((a, b) => (releaseKey(a) < releaseKey(b) ? -1 : 1));
    expect(byKey).toEqual(['0.0.1', '1.0.0', '1.0.9', '1.0.10', '1.9.0', '1.10.0', '2.0.0', '10.0.0']);
  });

  it('refuses prereleases, which never become current', () => {
    expect(() => releaseKey('1.0.0-rc.1')).toThrow();
  });
});
