import type { Category, Finding, Severity } from '../finding.ts';

/**
 * What an excerpt of a file may show. An excerpt is a hint for the author ("this line, here"),
 * never a copy of the file: one line, short, without control or invisible characters, and with
 * anything that looks like a credential masked, so that a finding about a command never quotes
 * the token written into it.
 */

/** Excerpts are cut to this many characters. */
const EXCERPT_CHARS = 60;

/** Prefixes of well-known token formats; what follows them is masked whatever its length. */
const TOKEN_PREFIX =
  /\b(gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk-(?:ant-|proj-)?|sk_(?:live|test)_|rk_(?:live|test)_|pk_live_|whsec_|AKIA|ASIA|AIza|npm_|pypi-|hf_|SG\.|dop_v1_|shpat_|sq0atp-)[A-Za-z0-9_\-+/=.]{4,}/g;
/** Long runs of the characters tokens are made of; masked when they mix letters and digits. */
const TOKEN_RUN = /[A-Za-z0-9_\-+=]{16,}/g;
/** Passwords in URLs (`user:secret@host`) and in assignments (`password=secret`, `token: secret`). */
const URL_PASSWORD = /(\/\/[^:@/\s]{1,64}:)([^@/\s]{1,128})@/g;
const ASSIGNED_SECRET =
  /\b((?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|auth|bearer|authorization)["']?\s{0,3}(?:[:=]|\s)\s{0,3}["']?)(?!(?:Bearer|Basic|Token)\b)([^\s"'&;,)]{6,})/gi;

const MASK = '…';

/** The excerpt with credential-looking parts masked, keeping their first four characters as a hint. */
function maskSecrets(text: string): string {
  return text
    .replace(URL_PASSWORD, (_, head: string) => `${head}${MASK}@`)
    .replace(ASSIGNED_SECRET, (_, head: string, value: string) => `${head}${value.length > 12 ? value.slice(0, 2) : ''}${MASK}`)
    .replace(TOKEN_PREFIX, (_, prefix: string) => `${prefix}${MASK}`)
    .replace(TOKEN_RUN, (m) => (/\d/.test(m) && /[A-Za-z]/.test(m) ? `${m.slice(0, 4)}${MASK}` : m));
}

/** An excerpt safe to show: secrets masked, one line, no control or invisible characters, short, well-formed UTF-16. */
export function safeExcerpt(text: string): string {
  const chars = Array.from(
    maskSecrets(
      text
        .slice(0, EXCERPT_CHARS * 4)
        .replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|\udb40[\udc00-\udfff]/g, ' ')
        .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, ''),
    )
      .replace(/\s+/g, ' ')
      .trim(),
  );
  return chars.length > EXCERPT_CHARS ? `${chars.slice(0, EXCERPT_CHARS - 1).join('')}…` : chars.join('');
}

/**
 * The public form of a finding: the rule's reason, a note that never quotes the file (an
 * encoding, the chain of a flow, why it was lowered), then, when quoting is allowed, a safe
 * excerpt.
 */
export function explain(
  f: { rule: { id: string; category: Category; severity: Severity; reason: string }; line: number; note?: string; excerpt?: string; severity?: Severity },
  file: string,
  quote: boolean,
): Finding {
  const excerpt = quote && f.excerpt ? safeExcerpt(f.excerpt) : '';
  const message = `${f.rule.reason}${f.note ? ` (${f.note})` : ''}${excerpt ? `: ${excerpt}` : ''}`;
  return { rule: f.rule.id, category: f.rule.category, severity: f.severity ?? f.rule.severity, file, line: f.line, message };
}
