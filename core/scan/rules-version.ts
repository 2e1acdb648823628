import preset from '@secretlint/secretlint-rule-preset-recommend/package.json' with { type: 'json' };
import { createHash } from 'node:crypto';
import { rules } from './analyse/rules.ts';

/**
 * Names the rules a scan ran with, so a stored result says which rules judged it and a rescan
 * knows what changed. It has two parts: a revision bumped by hand whenever a rule's logic
 * changes (a function, which minified bundles would otherwise hash differently), and a hash of
 * what the table declares (ids, categories, severities, reasons, patterns, keywords) and of the secretlint
 * preset's version, which changes by itself. A test pins the hash, so a table change that
 * forgets the revision fails there.
 */
export const RULES_REVISION = '2026.12.06.3';

export function rulesTableHash(): string {
  const table = rules.map((r) => [
    r.id,
    r.category,
    r.severity,
    r.reason,
    r.scope,
    'pattern' in r && r.pattern ? `${r.pattern.source}/${r.pattern.flags}` : '',
    'keywords' in r ? (r.keywords ?? []) : [],
  ]);
  return createHash('sha256')
    .update(JSON.stringify({ table, secretlint: preset.version }))
    .digest('hex')
    .slice(0, 12);
}

export const rulesVersion = `${RULES_REVISION}-${rulesTableHash()}`;
