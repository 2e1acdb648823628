/**
 * Letters from other scripts that look like Latin ones (Unicode's confusables for the Latin
 * alphabet, the Cyrillic and Greek ones attackers use): `сurl` with a Cyrillic `с` reads as curl to
 * a person and must to the rules. Applied after NFKC, which folds the compatibility forms
 * (fullwidth, mathematical letters) but leaves other scripts alone.
 */
const CONFUSABLE: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  с: 'c',
  ԁ: 'd',
  е: 'e',
  һ: 'h',
  і: 'i',
  ј: 'j',
  к: 'k',
  ӏ: 'l',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  ԛ: 'q',
  ѕ: 's',
  т: 't',
  у: 'y',
  х: 'x',
  ԝ: 'w',
  ь: 'b',
  ɡ: 'g',
  А: 'A',
  В: 'B',
  С: 'C',
  Е: 'E',
  Н: 'H',
  І: 'I',
  Ј: 'J',
  К: 'K',
  М: 'M',
  О: 'O',
  Р: 'P',
  Ѕ: 'S',
  Т: 'T',
  Х: 'X',
  Ү: 'Y',
  Ԝ: 'W',
  // Greek
  α: 'a',
  ο: 'o',
  ρ: 'p',
  ν: 'v',
  ι: 'i',
  κ: 'k',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ε: 'e',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  // Latin lookalikes outside ASCII
  ı: 'i',
  ȷ: 'j',
  ℓ: 'l',
};
const PATTERN = new RegExp(`[${Object.keys(CONFUSABLE).join('')}]`, 'g');

/** The text with lookalike letters folded to the Latin letters they imitate. */
export function foldConfusables(text: string): string {
  return text.replace(PATTERN, (c) => CONFUSABLE[c] ?? c);
}
