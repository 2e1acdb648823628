/**
 * Rules for free text that people type and other programs print: names, descriptions,
 * categories, changelogs. Text must survive every strict reader (no lone surrogates, which
 * `jq` and other strict JSON parsers refuse) and every terminal (no control characters, which
 * can move the cursor, retitle the window or fake output when a client prints them).
 */

// C0 controls, DEL and C1 controls. Tab and newline are allowed only in multi-line text.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const CONTROL_OR_LINE_BREAK = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `text` is refused as one line of text (a name, a label), or null when it is fine. */
export function singleLineTextProblem(text: string): string | null {
  if (!text.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)';
  if (CONTROL_OR_LINE_BREAK.test(text)) return 'must not contain control characters or line breaks';
  return null;
}

/** Why `text` is refused as multi-line text (a changelog): like one line, but \n and \t may appear. */
export function multiLineTextProblem(text: string): string | null {
  if (!text.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)';
  if (CONTROL.test(text)) return 'must not contain control characters other than newline and tab';
  return null;
}

/** The length of `text` in UTF-8 bytes, without encoding it (core runs in browsers too, without Buffer). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
