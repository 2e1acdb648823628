/**
 * Deterministic JSON: object keys sorted, no insignificant white space, `undefined` members
 * dropped. Equal values always give equal bytes, so static files get stable ETags.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/**
 * The same deterministic value, indented for files people read and diff (a lockfile), with a
 * final newline.
 */
export function readableCanonicalJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    // No prototype: a `__proto__` key is data to keep, not a prototype to set (and lose).
    const sorted: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) sorted[key] = sortKeys(member);
    }
    return sorted;
  }
  return value;
}
