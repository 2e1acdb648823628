import { rules as secretlintRules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintRuleContext, SecretLintRuleMessageTranslateResult, SecretLintSourceCode } from '@secretlint/types';
import { lineAt, lineStarts } from '../read/source-text.ts';

/**
 * Committed credentials, found by secretlint's recommended rules (AWS, GCP, GitHub, GitLab,
 * npm, Slack, OpenAI, Anthropic, private keys, database URLs with passwords, and more), which
 * skip documented placeholders such as `AKIAIOSFODNN7EXAMPLE` or `sk-...`.
 *
 * The rules are driven here directly through their plugin interface (create → file handler),
 * not through `@secretlint/core`: core runs asynchronously and records performance marks on
 * every call that are never cleared, which a long-lived publish service cannot afford.
 */

export interface SecretHit {
  /** 1-based line of the secret. */
  line: number;
  /** What kind of credential, e.g. `github: GITHUB_TOKEN`; never the value. */
  kind: string;
}

/**
 * Scanner rules only. The preset's comment filter (typed a scanner too) reads `secretlint-disable`
 * comments, which authors must not get to use here: it only ever ignores, so it is left out.
 */
const scanners = secretlintRules.filter(
  (rule) => rule.meta.type === 'scanner' && rule.meta.supportedContentTypes.includes('text') && rule.meta.id !== '@secretlint/secretlint-rule-filter-comments',
);

/**
 * AWS access key ids are reported too (secretlint leaves them off by default; a committed id is
 * usually committed with its secret). They are found here rather than by the AWS rule's option,
 * which also reports any 12-digit number near the word "account": an account id is no credential,
 * and "rotate it" is advice no one can follow.
 */
const AWS_ACCESS_KEY_ID = /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b/g;
/** AWS's own documented example id. */
const AWS_EXAMPLE_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';

/** Where the rules' reports go while one file is scanned; the scan is synchronous, so one at a time. */
let report: ((kind: string, range: readonly [number, number]) => void) | null = null;

/** The rules' handlers, created once: creating them per file cost more than running them. */
const handlers = scanners.map((rule) => {
  const name = rule.meta.id.replace('@secretlint/secretlint-rule-', '');
  const context: SecretLintRuleContext = {
    sharedOptions: {},
    createTranslator: () => (messageId, data) => ({ message: '', messageId: String(messageId), data }) as SecretLintRuleMessageTranslateResult<never>,
    report: ({ message, range }) => report?.(`${name}: ${message.messageId}`, range),
    ignore: () => {},
  };
  return rule.create(context, {} as never);
});

export function findSecrets(filename: string, content: string): SecretHit[] {
  const starts = lineStarts(content);
  const hits: SecretHit[] = [];
  const source = sourceCode(filename, content, starts);
  report = (kind, range) => {
    if (!isPlaceholder(content.slice(range[0], Math.min(range[1], range[0] + 400)))) hits.push({ line: lineAt(starts, range[0]), kind });
  };
  try {
    for (const m of content.matchAll(AWS_ACCESS_KEY_ID)) if (m[0] !== AWS_EXAMPLE_KEY_ID) report('aws: AWSAccessKeyID', [m.index, m.index + m[0].length]);
    for (const handler of handlers) {
      const pending = handler.file?.(source);
      // Every text rule reports synchronously; only GCP's .p12 reader is async, and it never runs
      // here (see sourceCode). A stray promise must not surface as an unhandled rejection.
      if (pending instanceof Promise) pending.catch(() => {});
    }
  } finally {
    report = null;
  }
  return hits;
}

const DEFAULT_PASSWORD = /^(?:pass(?:word)?|secret|admin|root|postgres|mysql|mongo|redis|changeme|example|test|guest|default|pw|pwd|1234\d{0,4})$/i;
const PLACEHOLDER =
  /<[^>\s]{1,40}>|\{\{|\$\{|\.\.\.|\*{3,}|x{4,}|your[_-]?|example\.(?:com|org|net)|\.example\b|placeholder|changeme|redacted|dummy|0{8,}|12345678/i;

/**
 * Documentation shows credentials as placeholders (`ghp_xxxx…`, `<password>`, `user:pass@example.com`)
 * that secretlint's patterns still match. A real token is long and varied; a placeholder is
 * marked as one, or made of a handful of distinct characters.
 */
export function isPlaceholder(value: string): boolean {
  if (PLACEHOLDER.test(value)) return true;
  // Connection strings in docs and compose files use the default or the user name as password.
  const login = /:\/\/([^:@/\s]{1,64}):([^@/\s]{1,128})@/.exec(value);
  if (login && (login[1] === login[2] || DEFAULT_PASSWORD.test(login[2]!))) return true;
  const longest = (value.match(/[A-Za-z0-9]{16,}/g) ?? []).reduce((a, b) => (b.length > a.length ? b : a), '');
  return longest !== '' && new Set(longest).size < 10;
}

/** The source the rules read. It has no physical path, so no rule can read the file system. */
function sourceCode(filename: string, content: string, starts: readonly number[]): SecretLintSourceCode {
  const dot = filename.lastIndexOf('.');
  const ext = dot > filename.lastIndexOf('/') ? filename.slice(dot) : '';
  const indexToPosition = (index: number) => {
    const line = lineAt(starts, index);
    return { line, column: index - starts[line - 1]! };
  };
  const positionToIndex = (pos: { line: number; column: number }) => (starts[pos.line - 1] ?? content.length) + pos.column;
  return {
    hasBOM: false,
    content,
    filePath: filename,
    physicalFilePath: undefined,
    contentType: 'text',
    // The GCP rule reads a `.p12` file from disk by its path; a skill's text file named so must not make it try.
    ext: ext.toLowerCase() === '.p12' ? '' : ext,
    getFilePath: () => filename,
    getPhysicalFilePath: () => undefined,
    indexToPosition,
    positionToIndex,
    rangeToLocation: ([a, b]) => ({ start: indexToPosition(a), end: indexToPosition(b) }),
    locationToRange: (loc) => [positionToIndex(loc.start), positionToIndex(loc.end)],
  };
}
