/**
 * Letters and digits of any script that pass for Latin letters and digits, as data: Unicode's
 * confusables (Unicode Technical Standard #39, `confusables.txt`, version 14.0.0), the rows whose
 * prototype is made of Latin letters or digits, read case-insensitively. The imitation check
 * (core/slug-imitation.ts) reduces display names through it to a skeleton, as TS #39's
 * skeleton does.
 *
 * How the rows were taken from the standard's table, so they can be taken again from a newer one:
 * - the prototype of each row is lower-cased, and a small capital in it is its letter (`ᴘ` is
 *   `p`, `ĸ` is `k`): a skeleton that ignores case reads a small capital as the letter it is. The
 *   standard compares case-sensitively, so `к` (Cyrillic) is a `ĸ` there and a `k` here;
 * - a capital drawn like a capital `I` (`І`, `Ι`) is an `i`, not the `l` the standard gives it:
 *   here case is ignored, so `I` itself reads as `i`;
 * - rows for ASCII characters (`0`, `1`, `I`, `m`) are left out: the slug's folds
 *   (`0→o`, `1→l`, `rn→m`, `vv→w`) and case folding cover them;
 * - rows that compatibility decomposition already reads (full-width and mathematical letters,
 *   ligatures, a mathematical alpha that decomposes to `Α`) are left out: the reading applies
 *   NFKD first;
 * - added: every Latin letter small capital (`ʙ ᴄ ᴅ ᴇ ꜰ ɢ ʜ ɪ …`), and three lookalikes the
 *   standard maps to letters outside Latin (`м`, `Ԛ`, `χ`).
 *
 * Characters outside the Basic Multilingual Plane, right-to-left ones and marks are written as
 * escapes, so the table reads the same in any editor.
 */
const LATIN_LOOKALIKES: Readonly<Record<string, string>> = {
  '2': 'ƧϨᒿꙄꛯꝚ',
  '3': 'ƷȜЗӠⳌꝪꞫ\u{118CA}\u{16F3B}\u{1D206}',
  '4': 'Ꮞ\u{118AF}',
  '5': 'Ƽ\u{118BB}',
  '6': 'бᏮⳒ\u{118D5}',
  '7': '\u{104D2}\u{118C6}\u{1D212}',
  '8': 'Ȣȣ৪੪\u{B03}\u{1031A}\u{1E8CB}',
  '9': '৭੧୨൭ⳊꝮ\u{118AC}\u{118CC}\u{118D6}',
  a: 'ɑΑαАаᎪᗅᴀ⍺ꓮꭺ\u{102A0}\u{16F40}',
  b: 'ƄʙΒВЬвᏏᏴᏼᑲᖯᗷꓐꞴ\u{10282}\u{102A1}\u{10301}',
  c: 'ϲϹСсᏟᴄⲤⲥꓚꮯ\u{102A2}\u{10302}\u{10415}\u{1043D}\u{1051C}\u{118E9}\u{118F2}\u{1F74C}',
  d: 'ԁᎠᏧᑯᗞᗪᴅꓒꓓꭰ',
  e: 'ΕЕеҽᎬᴇ℮⋿ⴹꓰꬲꭼ\u{10286}\u{118A6}\u{118AE}',
  f: 'ſϜքᖴẝꓝꜰꞘꞙꬵ\u{10287}\u{102A5}\u{10525}\u{118A2}\u{118C2}\u{1D213}',
  g: 'ƍɡɢԌԍցᏀᏳᏻᶃꓖꮐ',
  h: 'ʜΗНнһհᎻᏂᕼⲎꓧꮋ\u{102CF}',
  i: 'ıƖɩɪ˛ͺΙιІіӀӏᎥᏞ⍳ⲒⳐꙇꭵ\u{1041B}\u{118A3}\u{118B2}\u{118C3}',
  j: 'ͿϳЈјᎫᒍᴊꓙꞲꭻ',
  k: 'ĸΚκКкᏦᛕᴋⲔⲕꓗꮶ\u{10518}',
  l: 'ǀʟ\u{5C0}\u{5D5}\u{5DF}\u{627}\u{661}۱\u{7CA}ᒪᛁⅠ∣⏽ⳑⵏꓡꓲꮮ￨\u{1028A}\u{10309}\u{10320}\u{10443}\u{10526}\u{16F16}\u{16F28}\u{1D22A}\u{1D7CF}\u{1D7D9}\u{1D7E3}\u{1D7ED}\u{1D7F7}\u{1E8C7}\u{1FBF1}',
  m: 'ΜϺМмᎷᗰᛖᴍⲘꓟ\u{102B0}\u{10311}',
  n: 'ɴΝոռⲚꓠ\u{10513}',
  o: 'ΟοσОоՕօ\u{5E1}\u{647}\u{665}\u{6BE}\u{6C1}\u{6D5}۵\u{7C0}०০੦૦ଠ୦௦\u{C02}౦\u{C82}೦\u{D02}ഠ൦\u{D82}๐໐ဝ၀ჿዐᴏᴑⲞⲟⵔ〇ꓳꬽ\u{10292}\u{102AB}\u{10404}\u{1042C}\u{104C2}\u{104EA}\u{10516}\u{114D0}\u{118B5}\u{118C8}\u{118D7}\u{118E0}\u{1D7CE}\u{1D7D8}\u{1D7E2}\u{1D7EC}\u{1D7F6}\u{1FBF0}',
  p: 'ΡρРрᏢᑭᴘᴩ⍴Ⲣⲣꓑꮲ\u{10295}',
  q: 'Ԛԛգզⵕꞯ',
  r: 'ƦʀгᎡᏒᖇᴦⲅꓣꭇꭈꭱꮁꮢ\u{104B4}\u{16F35}\u{1D216}',
  s: 'ƽЅѕՏᏕᏚꓢꜱꮪ\u{10296}\u{10420}\u{10448}\u{118C1}\u{16F3A}',
  t: 'ΤτТтᎢᴛ⊤⟙Ⲧꓔꭲ\u{10297}\u{102B1}\u{10315}\u{118BC}\u{16F0A}\u{1F768}',
  u: 'ʋυՍսሀᑌᴜ∪⋃ꓴꞟꭎꭒ\u{104CE}\u{104F6}\u{118B8}\u{118D8}\u{16F42}',
  v: 'νѴѵ\u{5D8}\u{667}۷Ꮩᐯᴠ∨⋁ⴸꓦꛟꮩ\u{1051D}\u{11706}\u{118A0}\u{118C0}\u{16F08}\u{1D20D}',
  w: 'ɯѡԜԝաᎳᏔᴡꓪꮃ\u{1170A}\u{1170E}\u{1170F}\u{118E6}\u{118EF}',
  x: '×ΧχХхᕁᕽ᙭᙮ᚷ╳⤫⤬⨯ⲬⵝꓫꞳ\u{10290}\u{102B4}\u{10317}\u{10322}\u{10527}\u{118EC}',
  y: 'ɣʏΥγУуҮүყᎩᎽᶌỿⲨꓬꭚ\u{102B2}\u{118A4}\u{118DC}\u{16F43}',
  z: 'ΖᏃᴢꓜꮓ\u{102F5}\u{118A9}\u{118C4}\u{118E5}',
  aa: 'Ꜳꜳ',
  ae: 'ÆæӔӕ',
  ao: 'Ꜵꜵ',
  ar: '\u{1F707}',
  au: 'Ꜷꜷ',
  av: 'ꜸꜹꜺꜻ',
  ay: 'Ꜽꜽ',
  bl: 'Ы',
  dz: 'ʣ',
  lj: 'Ĳ',
  ll: 'ǁ\u{5F0}‖Ⅱ∥',
  lll: 'Ⅲ',
  lo: 'Ю',
  ls: 'ʪ',
  lt: '₶',
  lv: 'Ⅳ',
  lx: 'Ⅸ',
  lz: 'ʫ',
  mb: '\u{1F76B}',
  oe: 'Œœɶ',
  oo: '∞ꚘꚙꝎꝏ',
  qe: '\u{1F700}',
  rn: 'ⅿ\u{11700}\u{118E3}\u{1D426}\u{1D45A}\u{1D48E}\u{1D4C2}\u{1D4F6}\u{1D52A}\u{1D55E}\u{1D592}\u{1D5C6}\u{1D5FA}\u{1D62E}\u{1D662}\u{1D696}',
  sss: '\u{1F75C}',
  t3: 'Ꜩ',
  tf: 'ꝷ',
  ts: 'ʦ',
  ue: 'ᵫ',
  uo: 'ꭣ',
  vb: '\u{1F76C}',
  vl: 'Ⅵ',
  vll: 'Ⅶ',
  vlll: 'Ⅷ',
  xl: 'Ⅺ',
  xll: 'Ⅻ',
};

/**
 * Each lookalike character and the Latin letters or digits it passes for: made with the first
 * reading, not when a Lambda loads the module (only a new skill's name is ever read).
 */
let prototypeOf: ReadonlyMap<string, string> | undefined;
const prototypes = (): ReadonlyMap<string, string> =>
  (prototypeOf ??= new Map(Object.entries(LATIN_LOOKALIKES).flatMap(([prototype, lookalikes]) => [...lookalikes].map((c) => [c, prototype] as const))));

/**
 * The text as a person reads it in Latin letters, in lower case: compatibility forms unified and
 * marks dropped (NFKD), each lookalike replaced by the letters it passes for (the table above),
 * marks dropped again (a mapped letter may bring one), then lower case. Characters that pass for
 * nothing Latin stay as they are.
 */
export function latinReading(text: string): string {
  const prototypeOf = prototypes();
  let out = '';
  for (const c of withoutMarks(text)) out += prototypeOf.get(c) ?? c;
  return withoutMarks(out).toLowerCase();
}

const withoutMarks = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '');
