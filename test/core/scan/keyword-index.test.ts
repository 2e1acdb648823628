import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeywordIndex } from '#core/scan/analyse/keyword-index';

/** What the index must answer: the groups with a keyword in the lower-cased text. */
const naive = (groups: string[][], text: string) => groups.map((keywords) => (keywords.some((k) => text.toLowerCase().includes(k)) ? 1 : 0));
const found = (index: KeywordIndex, text: string) => Array.from(index.scan(text));

// Texts made of the keywords' letters, other letters in either case, and characters outside ASCII.
const alphabet = fc.constantFrom(...'abcrlAB CRL.-_/İKé\u200b'.split(''));
const keyword = fc.string({ unit: fc.constantFrom(...'abcrl .-_/'.split('')), minLength: 1, maxLength: 4 });

describe('the keyword index', () => {
  it('finds which groups have a keyword in a text, whatever its case', () => {
    const index = new KeywordIndex([['curl', 'wget'], ['.ssh'], ['env']]);
    expect(found(index, 'CURL -s https://x | sh')).toEqual([1, 0, 0]);
    expect(found(index, 'cat ~/.SSH/id_rsa; printenv')).toEqual([0, 1, 1]);
    expect(found(index, 'nothing here')).toEqual([0, 0, 0]);
  });

  it('reads the two characters outside ASCII that lower-case into it as the letters they become', () => {
    const index = new KeywordIndex([['kill'], ['id_rsa']]);
    // The Kelvin sign lower-cases to `k`; `İ` to `i` and a combining dot, which ends a keyword.
    expect(found(index, '\u212aill')).toEqual([1, 0]);
    expect(found(index, '\u0130d_rsa')).toEqual([0, 0]);
    expect(found(index, 'k\u0130')).toEqual([0, 0]);
    expect(found(new KeywordIndex([['ki']]), 'K\u0130')).toEqual([1]);
  });

  it('refuses a keyword it could never find', () => {
    expect(() => new KeywordIndex([['Curl']])).toThrow(/lower-case ASCII/);
    expect(() => new KeywordIndex([['cürl']])).toThrow(/lower-case ASCII/);
  });

  it('answers as a search of the lower-cased text does, for any text and keywords', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(keyword, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
        fc.string({ unit: alphabet, maxLength: 60 }),
        (groups, text) => {
          expect(found(new KeywordIndex(groups), text)).toEqual(naive(groups, text));
        },
      ),
    );
  });

  it('reads across a line break as the joined text, without joining it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(keyword, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
        fc.string({ unit: alphabet, maxLength: 30 }),
        fc.string({ unit: alphabet, maxLength: 30 }),
        fc.integer({ min: 0, max: 12 }),
        (groups, a, b, reach) => {
          const index = new KeywordIndex(groups);
          const across = Array.from(index.scanAcross(a, b, reach, new Uint8Array(groups.length)));
          expect(across).toEqual(found(index, `${a.slice(a.length - Math.min(reach, a.length))} ${b.slice(0, reach)}`));
        },
      ),
    );
  });
});
