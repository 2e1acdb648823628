import { writeFrontMatter } from '#core/skill-front-matter';
import { slugify } from '#core/slug';
import { call, untilObservedAt } from './server-process.ts';

/**
 * A small, realistic catalog published through the API of a running server, for the site's
 * browser tests and their screenshots: versions with changelogs, a paid skill, installs from
 * every source, and one skill whose name and description are an XSS payload.
 */
export const XSS_NAME = '<img src=x onerror=alert(1)>';
export const XSS_DESCRIPTION = '<script>alert(2)</script> "quoted" & <b>bold</b>';

export interface PublishedSkill {
  id: string;
  slug: string;
  name: string;
}

export interface SiteFixture {
  base: string;
  cookie: string;
  key: string;
  skills: Record<'pretty' | 'notes' | 'sql' | 'xss', PublishedSkill>;
}

export async function signIn(base: string, login: string): Promise<string> {
  const res = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login }, headers: { origin: base } });
  if (res.status !== 200) throw new Error(`dev-login ${res.status}`);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

export async function createKey(base: string, cookie: string, name = 'fixture'): Promise<string> {
  const res = await call(base, '/api/api-keys', { method: 'POST', body: { name }, headers: { cookie, origin: base } });
  if (res.status !== 201) throw new Error(`api key ${res.status}`);
  return res.body.key as string;
}

export async function publish(base: string, key: string, body: Record<string, unknown>): Promise<PublishedSkill> {
  const res = await call(base, '/api/publish', { method: 'POST', body, headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 201) throw new Error(`publish ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, slug: res.body.slug, name: res.body.name };
}

export async function addVersion(
  base: string,
  key: string,
  id: string,
  version: string,
  changelog: string,
  files: { filename: string; content: string; executable?: boolean }[],
): Promise<void> {
  const res = await call(base, `/api/skills/${id}/versions`, {
    method: 'POST',
    body: { version, changelog, files },
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 201) throw new Error(`version ${res.status} ${JSON.stringify(res.body)}`);
}

/** A conforming SKILL.md for the skill whose display name is `title` (its slug is made from it). */
export const skillMd = (title: string, body: string, slug = slugify(title)) => writeFrontMatter({ name: slug, description: body }, `# ${title}\n\n${body}\n`);

/** The hostile skill's SKILL.md: valid front matter, then markup where a careless viewer would run it. */
export const XSS_SKILL_MD = skillMd('<img src=x onerror=alert(3)>', 'An XSS probe: <img src=x onerror=alert(4)>', 'xss-probe');

export async function publishFixture(base: string): Promise<SiteFixture> {
  const cookie = await signIn(base, 'alice');
  const key = await createKey(base, cookie);
  const pretty = await publish(base, key, {
    name: 'Pretty JSON',
    description: 'Formats and validates JSON files, sorting keys and fixing trailing commas.',
    category: 'dev tools',
    changelog: 'First release',
    files: [
      { filename: 'SKILL.md', content: skillMd('Pretty JSON', 'Format JSON with stable key order.') },
      { filename: 'scripts/format.sh', content: '#!/bin/sh\njq -S . "$1"\n', executable: true },
    ],
  });
  await addVersion(base, key, pretty.id, '1.1.0', 'Sorts keys by default.', [
    { filename: 'SKILL.md', content: skillMd('Pretty JSON', 'Format JSON with stable key order.') },
    { filename: 'scripts/format.sh', content: '#!/bin/sh\njq -S --indent 2 "$1"\n', executable: true },
  ]);
  await addVersion(base, key, pretty.id, '2.0.0', 'Breaking: requires jq 1.7.\nAdds --check to fail on unformatted files.', [
    { filename: 'SKILL.md', content: skillMd('Pretty JSON', 'Format and check JSON with stable key order.') },
    {
      filename: 'scripts/format.sh',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell script's own ${1:-}
      content: '#!/bin/sh\nset -eu\nif [ "${1:-}" = --check ]; then shift; jq -S . "$1" | diff -q - "$1"; else jq -S --indent 2 . "$1"; fi\n',
      executable: true,
    },
    { filename: 'examples/input.json', content: '{"b": 1, "a": [1, 2, 3]}\n' },
  ]);
  const notes = await publish(base, key, {
    name: 'Release Notes Writer',
    description: 'Turns merged pull requests into release notes grouped by feature, fix and breaking change.',
    category: 'writing',
    files: [{ filename: 'SKILL.md', content: skillMd('Release Notes Writer', 'Draft release notes from merged pull requests.') }],
  });
  const sql = await publish(base, key, {
    name: 'SQL Explainer',
    description: 'Explains slow PostgreSQL queries from EXPLAIN ANALYZE output and suggests indexes.',
    category: 'data',
    paid: true,
    files: [{ filename: 'SKILL.md', content: skillMd('SQL Explainer', 'Read query plans.') }],
  });
  const xss = await publish(base, key, {
    name: XSS_NAME,
    description: XSS_DESCRIPTION,
    category: 'testing',
    slug: 'xss-probe',
    files: [{ filename: 'SKILL.md', content: XSS_SKILL_MD }],
  });
  for (const [name, description, category] of [
    ['Commit Message Coach', 'Writes conventional commit messages from staged diffs.', 'dev tools'],
    ['Terraform Plan Reviewer', 'Reviews terraform plan output for risky changes before apply.', 'ops'],
    ['CSV Cleaner', 'Normalises CSV exports: encodings, delimiters, dates and duplicate rows.', 'data'],
  ] as const) {
    await publish(base, key, { name, description, category, files: [{ filename: 'SKILL.md', content: skillMd(name, description) }] });
  }
  // Pretty JSON has a script: each version is run in the sandbox before it is delivered by default.
  for (const version of ['1.0.0', '1.1.0', '2.0.0']) await untilObservedAt(base, key, pretty.id, version);
  for (const source of ['cli', 'cli', 'cli', 'cli', 'cli', 'web', 'web', 'api']) {
    const res = await call(base, `/api/deliver/${pretty.id}?source=${source}`);
    if (res.status !== 200) throw new Error(`deliver ${res.status}`);
  }
  return { base, cookie, key, skills: { pretty, notes, sql, xss } };
}
