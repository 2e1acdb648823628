import { getFrom, untilObservedAt } from './server-process.ts';
import { createKey, type PublishedSkill, publish, signIn } from './site-fixture.ts';

/**
 * Skills whose pages show what a `SKILL.md` renders to, published through the API of a running
 * server: a free skill with front matter, headings, a table and a code block; one whose Markdown
 * tries to run script; a paid one whose body must stay private; two authors; installs that make
 * an order of popularity, and a last publish after the installs.
 */
export const RICH_SKILL_FILE = `---
name: pdf-tables
description: Extracts the tables of PDF files into CSV.
license: Apache-2.0
compatibility: Needs pdftotext (poppler-utils) on the PATH.
metadata:
  author: bob
  version: "1.2"
  repository: https://github.com/bob/pdf-tables
---
# PDF Tables

Turns every table of a PDF into a **CSV** file.

## Usage

\`\`\`bash
pdftotext -layout "$1" - | ./scripts/extract.sh > tables.csv # one file per table
\`\`\`

| option | meaning |
| --- | --- |
| \`--pages\` | which pages to read |
`;

/** Each line tries to set `window.__pwned` another way; a rendered page must never run one. */
export const HOSTILE_SKILL_FILE = `---
name: markdown-probe
description: Markdown that tries to run script.
---
# Markdown probe

<script>window.__pwned = 'script'</script>

<img src="x" onerror="window.__pwned = 'onerror'">

[a javascript link](javascript:window.__pwned='link')

<a href="javascript:window.__pwned='raw link'" onclick="window.__pwned='onclick'">raw link</a>

<div onmouseover="window.__pwned='hover'">hover here</div>

<iframe src="javascript:parent.__pwned='iframe'"></iframe>

[documentation](https://example.com/docs)
`;

export const PAID_BODY = 'The secret recipe only buyers may read.';

export interface SkillPageFixture {
  /** alice's API key, for more publishes. */
  key: string;
  rich: PublishedSkill;
  hostile: PublishedSkill;
  paid: PublishedSkill;
  /** bob's skills, by name. */
  bobs: string[];
  /** Published last, after every install. */
  last: PublishedSkill;
}

export async function publishSkillPageFixture(base: string): Promise<SkillPageFixture> {
  const key = await createKey(base, await signIn(base, 'alice'));
  const bobKey = await createKey(base, await signIn(base, 'bob'));
  const rich = await publish(base, bobKey, {
    name: 'PDF Tables',
    description: 'Extracts the tables of PDF files into CSV.',
    category: 'data',
    files: [
      { filename: 'SKILL.md', content: RICH_SKILL_FILE },
      { filename: 'scripts/extract.sh', content: '#!/bin/sh\ncat\n' },
    ],
  });
  const hostile = await publish(base, key, {
    name: 'Markdown Probe',
    description: 'Markdown that tries to run script.',
    category: 'testing',
    files: [{ filename: 'SKILL.md', content: HOSTILE_SKILL_FILE }],
  });
  const paid = await publish(base, key, {
    name: 'Secret Recipe',
    description: 'A paid skill whose SKILL.md stays with its buyers.',
    category: 'data',
    paid: true,
    files: [{ filename: 'SKILL.md', content: `---\nname: secret-recipe\ndescription: A paid skill.\n---\n# Secret Recipe\n\n${PAID_BODY}\n` }],
  });
  const csv = await publish(base, bobKey, { name: 'CSV Joiner', description: 'Joins CSV files on a key column.', category: 'data' });
  // PDF Tables has a script and a bash block: it is run in the sandbox before it is delivered.
  const observed = await untilObservedAt(base, bobKey, rich.id);
  if (observed !== 'cleared') throw new Error(`PDF Tables was ${observed} by its run in the sandbox`);
  // Popularity: CSV Joiner, then PDF Tables, then Markdown Probe; Secret Recipe has none.
  for (const [skill, count] of [
    [csv, 5],
    [rich, 3],
    [hostile, 1],
  ] as const) {
    // Each from a client of its own: the public counts are distinct installs.
    for (let i = 0; i < count; i++) {
      const status = await getFrom(base, `/api/deliver/${skill.id}?source=cli`, `127.0.9.${i + 1}`);
      if (status !== 200) throw new Error(`deliver ${status}`);
    }
  }
  const last = await publish(base, key, { name: 'Last Word', description: 'Published after every install.', category: 'writing' });
  return { key, rich, hostile, paid, bobs: ['CSV Joiner', 'PDF Tables'], last };
}
