/**
 * Text from a registry made safe to print. An old, foreign or compromised registry can put escape
 * sequences and control characters in anything it sends — names, descriptions, changelogs,
 * versions, error messages — and printed raw they move the cursor, clear the screen, retitle the
 * window, or hide and fake output. Pure.
 */

/**
 * ESC and what it starts: a CSI sequence (`ESC [ … final`), a string (OSC, DCS, SOS, PM, APC) up
 * to its terminator or the end of the text, or the one character of a short escape. The same
 * sequences opened by their one-character C1 forms (U+009B CSI, U+009D OSC, …), which some
 * terminals also obey, go whole too.
 */
const ESCAPE_SEQUENCE =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\s\S]?/;

/**
 * C0 controls except tab and line feed (carriage return too: it rewrites the line), DEL, C1
 * controls, and the bidirectional embeddings, overrides and isolates, which make a terminal show
 * text in another order than it is.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Both, in one pass, so that a sequence kept is not then taken apart character by character. */
const UNPRINTABLE = new RegExp(`${ESCAPE_SEQUENCE.source}|${CONTROL.source}`, 'g');

/**
 * `text` without escape sequences and control characters; tabs and line feeds stay, for
 * changelogs and descriptions of several lines. `keep` names exact sequences to leave in place:
 * the client's own colours, which it adds around text before printing.
 */
export function terminalText(text: string, keep?: ReadonlySet<string>): string {
  return text.replace(UNPRINTABLE, (found) => (keep?.has(found) ? found : ''));
}

/** As {@link terminalText}, on one line: a code or a name cannot start a line of fake output. */
export const terminalLine = (text: string) => terminalText(text).replace(/[\t\n]+/g, ' ');

// Characters JSON.stringify leaves raw that a terminal may act on: DEL, C1, bidi controls, and
// U+2028/U+2029, which some readers of JSON as JavaScript take for line ends.
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `JSON.stringify(value, null, 2)` that is also safe on a terminal: the characters above are
 * written as `\uXXXX` escapes. They can only occur inside strings, so the document parses to the
 * same value, byte for byte what the registry sent; C0 controls JSON escapes already.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
