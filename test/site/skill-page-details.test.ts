import { describe, expect, it } from 'vitest';
import { AGENTS } from '#cli/agents';
import { installsDocument } from '#core/public-installs';
import type { RegistryDocument } from '#core/registry-document';
import { installsTotal, weeklyInstallsLabel } from '../../site/src/lib/format.ts';
import { forAgent, INSTALL_AGENTS } from '../../site/src/lib/install-agents.ts';
import { jsonLdText, softwareApplication } from '../../site/src/lib/share-metadata.ts';
import { skillFacts } from '../../site/src/lib/skill-facts.ts';
import { weeklyRanks } from '../../site/src/lib/skill-order.ts';

const rows = (entries: Record<string, string>) => Object.entries(entries).map(([key, value]) => ({ key, value }));

describe("a skill page's facts from its SKILL.md front matter", () => {
  it('takes the licence, the compatibility and the first web address among the usual source keys', () => {
    expect(
      skillFacts(rows({ name: 'x', license: 'MIT', compatibility: 'Claude Code', 'metadata.homepage': 'https://x.dev', repository: 'https://github.com/a/x' })),
    ).toEqual({
      license: 'MIT',
      compatibility: 'Claude Code',
      source: 'https://github.com/a/x',
      sourceLabel: 'github.com/a/x',
    });
    expect(skillFacts(rows({ 'Metadata.Repository': 'https://gitlab.com/a/x/' })).source).toBe('https://gitlab.com/a/x/');
    expect(skillFacts([])).toEqual({ license: '', compatibility: '', source: '', sourceLabel: '' });
  });

  it('links nothing that is not an http(s) address', () => {
    for (const hostile of ['javascript:alert(1)', 'data:text/html,x', 'github.com/a/x', 'https://', ' https://exa mple.com', 'ftp://a/b'])
      expect(skillFacts(rows({ repository: hostile })).source, hostile).toBe('');
  });
});

describe('weekly installs and rank', () => {
  const installs = installsDocument(
    [
      ['a', { total: 10, last7d: 2, last30d: 5 }],
      ['b', { total: 50, last7d: 2, last30d: 9 }],
      ['c', { total: 5, last7d: 4, last30d: 4 }],
      ['d', { total: 90, last7d: 0, last30d: 0 }],
    ],
    '2026-11-28T00:00:00.000Z',
  );

  it('ranks the skills installed this week, ties to the most installs in all; the others have no place', () => {
    expect([...weeklyRanks(installs)]).toEqual([
      ['c', 1],
      ['b', 2],
      ['a', 3],
    ]);
    expect(weeklyRanks(undefined).size).toBe(0);
  });

  it('says them beside the total', () => {
    expect([installsTotal({ total: 1234 }), weeklyInstallsLabel({ total: 1234, last7d: 402, last30d: 1210 }, 3)]).toEqual([
      '1,234',
      '(402 this week, #3 of all skills; 1,210 in 30 days)',
    ]);
    expect([installsTotal({ total: 0 }), weeklyInstallsLabel({ total: 0, last7d: 0, last30d: 0 })]).toEqual(['None yet', '']);
  });
});

describe('structured data', () => {
  const doc = {
    slug: 'pdf-tables',
    name: '</script><script>alert(1)</script>',
    description: 'd',
    author: 'bob',
    category: 'data',
    currentVersion: '1.2.0',
    updatedAt: '2026-11-28T00:00:00.000Z',
    paid: true,
    price: { amount: 1299, currency: 'eur' },
  } as RegistryDocument;

  it('describes a paid skill with its offer, and cannot be closed early by a name', () => {
    const app = softwareApplication('https://skills.example', doc, { license: 'MIT' });
    expect(app).toMatchObject({ url: 'https://skills.example/skills/pdf-tables/', offers: { price: '12.99', priceCurrency: 'EUR' }, license: 'MIT' });
    const text = jsonLdText([app]);
    expect(text).not.toContain('<');
    expect(JSON.parse(text)['@graph'][0].name).toBe(doc.name);
    // Not on sale yet: no offer at all.
    expect(softwareApplication('https://skills.example', { ...doc, price: undefined })).not.toHaveProperty('offers');
  });
});

describe('install commands per agent', () => {
  it('offers agents both CLIs know, and swaps the --agent flag in place', () => {
    for (const [id] of INSTALL_AGENTS) expect(AGENTS, id).toHaveProperty([id]);
    const ours = 'npx -y https://skills.example/cli/skillpress.tgz install pdf-tables';
    expect(forAgent(ours, 'claude-code')).toBe(`${ours} --agent claude-code`);
    expect(forAgent(forAgent(ours, 'claude-code'), 'codex')).toBe(`${ours} --agent codex`);
    expect(forAgent(forAgent(ours, 'codex'), '')).toBe(ours);
  });
});
