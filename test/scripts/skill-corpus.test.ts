import { describe, expect, it } from 'vitest';
import { decodeFile } from '#core/bundle';
import { limits } from '#core/limits';
import { checkSkillConformance } from '#core/skill-conformance';
import { skillCorpus } from '#scripts/bench/skill-corpus';
import { compared } from '#scripts/bench/table';

/** The install benchmark's workload, and how its target is held. */

describe('the install benchmark corpus', () => {
  const corpus = skillCorpus();
  const bytes = (skill: (typeof corpus)[number]) => skill.files.map((f) => decodeFile(f)!);

  it('is 14 skills and 227 files, 5 to 40 per skill, some of them binary, as in anthropics/skills', () => {
    expect(corpus).toHaveLength(14);
    expect(corpus.reduce((n, s) => n + s.files.length, 0)).toBe(227);
    for (const skill of corpus) expect(skill.files.length, skill.slug).toBeGreaterThanOrEqual(5);
    for (const skill of corpus) expect(skill.files.length, skill.slug).toBeLessThanOrEqual(40);
    expect(corpus.flatMap((s) => s.files).filter((f) => f.encoding === 'base64').length).toBeGreaterThan(20);
  });

  it('publishes: every skill conforms and stays within the publish limits', () => {
    for (const skill of corpus) {
      const files = bytes(skill);
      expect(checkSkillConformance(files, skill.slug).issues, skill.slug).toEqual([]);
      expect(files.length).toBeLessThanOrEqual(limits.filesPerVersion);
      expect(files.reduce((n, f) => n + f.bytes.byteLength, 0)).toBeLessThanOrEqual(limits.versionBytes);
      for (const file of files) expect(file.bytes.byteLength, file.filename).toBeLessThanOrEqual(limits.fileBytes);
    }
  });

  it('is the same bytes every time, and numbers the slugs of a larger set', () => {
    expect(skillCorpus()).toEqual(corpus);
    expect(
      skillCorpus(16)
        .map((s) => s.slug)
        .slice(13),
    ).toEqual(['web-artifacts-builder', 'algorithmic-art-2', 'brand-guidelines-2']);
  });
});

describe('a compared row', () => {
  it('holds a duration to at most its target ratio, a rate to at least', () => {
    expect(compared('install', 'cold', 'ms', 400, 1000, { atMost: 0.5 }, 'skills 1.7.4')).toMatchObject({
      ratio: 0.4,
      target: '≤ 0.5×',
      ok: true,
      peerName: 'skills 1.7.4',
    });
    expect(compared('install', 'cold', 'ms', 600, 1000, { atMost: 0.5 })).toMatchObject({ ratio: 0.6, ok: false });
    expect(compared('w1', 'reads', 'req/s', 5000, 1000, { atLeast: 5 })).toMatchObject({ ratio: 5, target: '≥ 5×', ok: true });
  });
});
