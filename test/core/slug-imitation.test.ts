import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SLUG_PATTERN } from '#core/slug';
import { type ImitationCandidate, imitatedSkill, imitationKeys, isLookalike, lookalikeKeys, lookalikeSkeleton, nameSkeleton } from '#core/slug-imitation';

const popular = (slug: string, installs = 100, author = 'alice', name = `Popular ${slug}`): ImitationCandidate => ({ slug, name, author, installs });

/** The check by slug alone: the new skill's name is like no other. */
const similarPopularSlug = (slug: string, author: string, candidates: readonly ImitationCandidate[]) => {
  const found = imitatedSkill(slug, 'Entirely Unrelated', author, candidates);
  return found && { similarTo: found.similarTo };
};

describe('lookalikeSkeleton', () => {
  it.each([
    ['pdf-tools', 'pdftools'],
    ['pdf-t00ls', 'pdftools'],
    ['pdf-too1s', 'pdftools'],
    ['rnarkdown', 'markdown'],
    ['r-n-d', 'md'],
    ['vvord-tools', 'wordtools'],
    ['s3-sync', 's3sync'],
  ])('%s → %s', (slug, skeleton) => {
    expect(lookalikeSkeleton(slug)).toBe(skeleton);
  });
});

describe('similarPopularSlug: imitations that are caught', () => {
  it.each([
    ['pdf-too1s', 'pdf-tools', '1 for l'],
    ['pdf-t00ls', 'pdf-tools', '0 for o, twice'],
    ['pdftools', 'pdf-tools', 'hyphen dropped'],
    ['p-d-f-tools', 'pdf-tools', 'hyphens added'],
    ['pdf-tool', 'pdf-tools', 'one letter dropped'],
    ['pdf-toolss', 'pdf-tools', 'one letter added'],
    ['pdf-taols', 'pdf-tools', 'one letter replaced'],
    ['pdf-tools-2', 'pdf-tools', 'a suffix digit, by someone else'],
    ['p0f-tools', 'pdf-tools', '0 for d: folds to poftools, one replacement'],
    ['pdf-too1z', 'pdf-tools', 'a fold and a replacement'],
    ['rnarkdown', 'markdown', 'rn for m'],
    ['rnarkdovvn', 'markdown', 'rn for m and vv for w'],
    ['5lack', 'slack', '5 for s: one replacement at five letters'],
    ['0ps', 'ops', 'short, but equal once folded'],
    ['g-it', 'git', 'short, but equal once hyphens go'],
  ])('%s imitates %s (%s)', (newSlug, existing) => {
    expect(similarPopularSlug(newSlug, 'mallory', [popular(existing)])).toEqual({ similarTo: existing });
  });
});

describe('similarPopularSlug: the rule’s known cost', () => {
  it.each([
    ['pdf-render', 'pdf-reader'],
    ['stack', 'slack'],
  ])('refuses the honest %s next to a popular %s, one letter apart', (newSlug, existing) => {
    expect(similarPopularSlug(newSlug, 'bob', [popular(existing)])).toEqual({ similarTo: existing });
  });
});

describe('similarPopularSlug: near names that pass', () => {
  it.each([
    ['pdf-tools-pro', [popular('pdf-tools')], 'three letters added'],
    ['pdf-tools-2', [popular('pdf-tools', 5000, 'mallory')], "the author's own skill"],
    ['pdf-tool', [popular('pdf-tools', 99)], 'a skill with 99 installs'],
    ['csv-tools', [popular('pdf-tools')], 'two letters replaced'],
    ['docs', [popular('docx')], 'one edit, but four letters'],
    ['deno', [popular('demo')], 'one edit, but four letters'],
    ['jsonl', [popular('json')], 'one edit, but the shorter has four letters'],
    ['yaml', [popular('yarn')], 'yarn folds to yam: one edit, but three letters'],
    ['pdf', [popular('pdc')], 'one edit, three letters'],
    ['g1t', [popular('git')], '1 folds to l, not i'],
    ['pdf-to-png', [popular('pdf-to-jpg')], 'two letters replaced'],
    ['pdf-tools', [], 'no candidates'],
  ])('%s passes next to %j (%s)', (newSlug, candidates) => {
    expect(similarPopularSlug(newSlug, 'mallory', candidates)).toBeUndefined();
  });

  it('names the most installed of several matches, whatever the order', () => {
    const candidates = [popular('pdf-tool', 150), popular('pdf-tools', 900, 'bob'), popular('pdf-toolz', 900, 'carol'), popular('pdf-tools-x', 5000)];
    expect(similarPopularSlug('pdf-tooll', 'mallory', candidates)).toEqual({ similarTo: 'pdf-tools' });
    expect(similarPopularSlug('pdf-tooll', 'mallory', [...candidates].reverse())).toEqual({ similarTo: 'pdf-tools' });
  });

  it('skips the author’s own match and finds another author’s', () => {
    expect(similarPopularSlug('pdf-tool', 'alice', [popular('pdf-tools', 1000), popular('pdf-tooll', 100, 'bob')])).toEqual({ similarTo: 'pdf-tooll' });
  });
});

describe('nameSkeleton', () => {
  it.each([
    ['PDF Tools', 'pdftools'],
    ['pdf-tools!', 'pdftools'],
    ['PDF Тools', 'pdftools'],
    ['РDF Тооls', 'pdftools'],
    ['ＰＤＦ Ｔｏｏｌｓ', 'pdftools'],
    ['Pdf Too1s', 'pdftools'],
    ['Résumé Tailor', 'resumetailor'],
    ['Ναme Κit', 'namekit'],
    ['Ѕеcret Ѕcаnner', 'secretscanner'],
    // Lookalikes beyond a handful of Cyrillic and Greek letters: Unicode's confusables, as data.
    ['Marкdown Kit', 'markdownkit'],
    ['Invoıce Wizard', 'invoicewizard'],
    ['ᴘDF Tools', 'pdftools'],
    ['ᴘᴅꜰ ᴛᴏᴏʟꜱ', 'pdftools'],
    ['Ꮲᗞ𝖥 Τοοⅼѕ', 'pdftools'],
    ['Ѐxport Ѐditor', 'exporteditor'],
    ['ɪnvoice ᴡizard', 'invoicewizard'],
  ])('%s → %s', (name, skeleton) => {
    expect(nameSkeleton(name)).toBe(skeleton);
  });
});

describe('imitatedSkill: display names', () => {
  const invoices = popular('invoice-wizard', 300, 'bob', 'Invoice Wizard');

  it.each([
    ['Invoice Wizard', 'the same name'],
    ['invoice   WIZARD', 'case and spaces'],
    ['Invoice Wіzard', 'a Cyrillic і'],
    ['ІNVOICE WIZАRD', 'Cyrillic capitals'],
    ['Ｉｎｖｏｉｃｅ Wizard', 'full-width letters'],
    ['Invoice-Wizard!', 'punctuation'],
    ['Invoıce Wızard', 'a dotless ı'],
    ['Invoiсe Wiᴢard', 'a Cyrillic с and a small capital ᴢ'],
  ])('refuses %j next to a popular "Invoice Wizard" (%s)', (name) => {
    expect(imitatedSkill('my-billing', name, 'mallory', [invoices])).toEqual({ similarTo: 'invoice-wizard', by: 'name' });
  });

  it.each([
    ['Invoice Wizardry', [invoices], 'another name'],
    ['Invoice Wizard', [popular('invoice-wizard', 300, 'mallory', 'Invoice Wizard')], "the author's own"],
    ['Invoice Wizard', [popular('invoice-wizard', 99, 'bob', 'Invoice Wizard')], 'under 100 installs'],
    ['Go', [popular('golang', 300, 'bob', 'Go')], 'under three characters'],
  ])('accepts %j next to %j (%s)', (name, candidates) => {
    expect(imitatedSkill('my-billing', name, 'mallory', candidates)).toBeUndefined();
  });

  it('says a slug imitation is one, when the slug is what reads alike', () => {
    expect(imitatedSkill('invoice-w1zard', 'Billing', 'mallory', [invoices])).toEqual({ similarTo: 'invoice-wizard', by: 'slug' });
  });

  it('indexes a skill under its name as well as its slug, so a store finds either', () => {
    expect(imitationKeys('invoice-wizard', 'Invoice Wizard')).toEqual([...lookalikeKeys('invoice-wizard'), 'name:invoicewizard']);
    expect(imitationKeys('go', 'Go')).toEqual(lookalikeKeys('go'));
    expect(imitationKeys('my-billing', 'Invoice Wіzard')).toContain('name:invoicewizard');
  });
});

describe('lookalikeKeys', () => {
  it('is the skeleton and its one-deletion variants, once each', () => {
    expect(lookalikeKeys('pd-f00l')).toEqual(['dfool', 'pdfol', 'pdfoo', 'pdfool', 'pdool', 'pfool']);
  });

  it('is the skeleton alone when it is too short for the one-edit rule', () => {
    expect(lookalikeKeys('0-ps')).toEqual(['ops']);
  });

  it('has at most 65 keys', () => {
    expect(lookalikeKeys('abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz23'.slice(0, 64)).length).toBeLessThanOrEqual(65);
  });

  it('gives any two lookalikes a key in common, so a store indexed by key finds every match', () => {
    const slug = fc.stringMatching(SLUG_PATTERN).filter((s) => s.length <= 64);
    const letter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-');
    // Lookalikes are rare among random pairs, so the second slug is made from the first by the
    // kinds of change an imitator makes; the property is checked whenever the rule says alike.
    const edit = fc.oneof(
      fc.tuple(fc.constant('insert'), fc.nat(), letter),
      fc.tuple(fc.constant('delete'), fc.nat(), letter),
      fc.tuple(fc.constant('replace'), fc.nat(), letter),
      fc.tuple(fc.constantFrom('o→0', 'l→1', 'm→rn', 'w→vv'), fc.nat(), letter),
    );
    let alike = 0;
    fc.assert(
      fc.property(slug, fc.array(edit, { minLength: 1, maxLength: 3 }), (a, edits) => {
        let b = a;
        for (const [kind, position, char] of edits) {
          const i = b.length === 0 ? 0 : position % (b.length + 1);
          if (kind === 'insert') b = b.slice(0, i) + char + b.slice(i);
          else if (kind === 'delete') b = b.slice(0, i) + b.slice(i + 1);
          else if (kind === 'replace') b = b.slice(0, i) + char + b.slice(i + 1);
          else {
            const [from, to] = kind.split('→') as [string, string];
            b = b.replace(from, to);
          }
        }
        if (!isLookalike(a, b)) return;
        alike++;
        const keys = new Set(lookalikeKeys(a));
        expect(lookalikeKeys(b).some((key) => keys.has(key))).toBe(true);
      }),
      { numRuns: 2000 },
    );
    // The generator must exercise the property, not skip it.
    expect(alike).toBeGreaterThan(500);
  });

  it('is symmetric: a imitates b exactly when b imitates a', () => {
    const slug = fc.stringMatching(/^[a-z01rnvw-]{1,12}$/);
    fc.assert(fc.property(slug, slug, (a, b) => isLookalike(a, b) === isLookalike(b, a)));
  });
});
