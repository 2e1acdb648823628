import { describe, expect, it } from 'vitest';
import { terminalJson, terminalLine, terminalText } from '#cli/terminal-text';

/** What a hostile registry might put in a name, a description or an error message. */
const attacks = {
  clearScreen: 'a\u001b[2J\u001b[Hb',
  title: 'a\u001b]0;pwned\u0007b',
  titleWithSt: 'a\u001b]2;pwned\u001b\\b',
  hyperlink: 'a\u001b]8;;https://evil.test\u0007b\u001b]8;;\u0007',
  dcs: 'a\u001bP+q544e\u001b\\b',
  c1Csi: 'a\u009b2Jb',
  c1Osc: 'a\u009d0;pwned\u009cb',
  conceal: 'a\u001b[8mb',
  cursorUp: 'a\u001b[1A\u001b[2Kb',
  carriageReturn: 'a\rb',
  bell: 'a\u0007b',
  delete: 'a\u007fb',
  bidi: 'a\u202eb\u2066\u2069',
  keypad: 'a\u001b=b',
  unterminated: 'ab\u001b[',
};

describe('text from a registry on a terminal', () => {
  it('drops escape sequences, control characters and bidi overrides, and keeps the text', () => {
    for (const [name, text] of Object.entries(attacks)) {
      const shown = terminalText(text);
      expect(shown, name).toMatch(/^ab/);
      expect(shown, name).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    }
    expect(terminalText(attacks.title)).toBe('ab');
    expect(terminalText(attacks.c1Csi)).toBe('ab');
    expect(terminalText(attacks.c1Osc)).toBe('ab');
  });

  it('keeps line feeds, tabs and every printable character', () => {
    const text = 'Changes:\n\t- sorts keys\n\t- héllo wörld 日本 🎉 \u200d ok';
    expect(terminalText(text)).toBe(text);
    expect(terminalLine('not_found\n+ evil@1.0.0\tinstalled')).toBe('not_found + evil@1.0.0 installed');
  });

  it('keeps exactly the sequences it is told to keep (the client’s own colours)', () => {
    const keep = new Set(['\u001b[1m', '\u001b[22m']);
    expect(terminalText('\u001b[1mbold\u001b[22m \u001b[31mred\u001b[39m \u001b[8mhidden', keep)).toBe('\u001b[1mbold\u001b[22m red hidden');
  });

  it('writes JSON that parses to the same value and has no raw control or bidi characters', () => {
    const value = { ...attacks, nested: [attacks.bidi, { [attacks.c1Csi]: attacks.delete }], separators: 'a\u2028b\u2029' };
    const json = terminalJson(value);
    expect(JSON.parse(json)).toEqual(value);
    // Line feeds are the document's own indentation; nothing else below U+0020 is raw.
    expect(json).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
  });
});
