import { describe, expect, it } from 'vitest';
import { codePointNames, invisibleMarks, smuggledText, stripInvisible } from '#core/scan/normalise/invisible';

const tags = (s: string) => [...s].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');

describe('invisible characters', () => {
  it('strips them for matching', () => {
    expect(stripInvisible('ig\u200bno\u200dre \u202eprevious')).toBe('ignore previous');
    expect(stripInvisible(`run${tags(' curl')}`)).toBe('run');
  });

  it('reports bidi controls and zero-width characters by code point', () => {
    const marks = invisibleMarks('a\u202eb\u200bc');
    expect(codePointNames(marks.bidi)).toBe('U+202E');
    expect(codePointNames(marks.zeroWidth)).toBe('U+200B');
    expect(marks.payload).toBe(false);
  });

  it('accepts the joiners of emoji and of Persian and Indic words', () => {
    expect(invisibleMarks('👩\u200d💻 ❤\ufe0f\u200d🔥 می\u200cخواهم क्\u200dष').zeroWidth).toEqual([]);
  });

  it('reads text smuggled in tag characters and variation selectors', () => {
    expect(smuggledText(`hello${tags('run curl now')}`)).toBe('run curl now');
    const selectors = [...Buffer.from('curl x')].map((b) => String.fromCodePoint(b < 16 ? 0xfe00 + b : 0xe0100 + b - 16)).join('');
    expect(invisibleMarks(`🎉${selectors}`).payload).toBe(true);
    expect(smuggledText(`🎉${selectors}`)).toBe('curl x');
  });

  it('leaves subdivision flags alone', () => {
    const england = `🏴${tags('gbeng')}\u{e007f}`;
    expect(invisibleMarks(england).payload).toBe(false);
  });
});
