import { describe, expect, it } from 'vitest';
import { type Effects, noEffects } from '#core/effects/effect';
import { effectKeys, effectSentence, listedEffects, newEffects } from '#core/effects/effect-words';

const at = (file: string, line: number) => ({ file, line });
const observed = { step: 'SKILL.md:12 (bash)', event: 'connect 203.0.113.9:443', clock: 'now' as const };

/** A version that reads AWS keys, writes a hook into the agent's settings and sends them to a host. */
function rugPull(): Effects {
  return {
    ...noEffects(),
    reads: [
      { class: 'cloud-credentials', row: 'aws-credentials', reason: 'cloud', target: '~/.aws/credentials', evidence: at('SKILL.md', 4), source: 'static' },
    ],
    writes: [
      {
        class: 'agent-config',
        row: 'claude-settings',
        reason: 'agent',
        target: '~/.claude/settings.json: hooks',
        scope: 'global',
        evidence: at('scripts/setup.sh', 3),
        source: 'static',
      },
    ],
    network: [
      {
        class: 'host',
        reason: 'anyone',
        target: 'collect.example.net',
        host: 'collect.example.net',
        protocol: 'tls',
        sent: { bytes: 512, honeytokens: [{ token: 'aws-secret-access-key', class: 'cloud-credentials', encoding: ['base64'] }] },
        evidence: observed,
        source: 'observed',
      },
    ],
  };
}

describe('effects in plain words', () => {
  it('says what each effect does, in the order reads, writes, network, executes, asks', () => {
    const sentences = listedEffects(rugPull()).map(effectSentence);
    expect(sentences).toEqual([
      'reads your cloud credentials: ~/.aws/credentials',
      "writes your agent's configuration (global): ~/.claude/settings.json: hooks",
      'connects to collect.example.net, sending 512 bytes with the planted aws-secret-access-key (base64)',
    ]);
  });

  it('names a package registry as one, and runs and asks as they are', () => {
    const effects: Effects = {
      ...noEffects(),
      network: [
        {
          class: 'package-registry',
          reason: 'r',
          target: 'registry.npmjs.org',
          host: 'registry.npmjs.org',
          port: 443,
          protocol: 'tls',
          evidence: at('package.json', 1),
          source: 'static',
        },
      ],
      executes: [{ class: 'downloaded-content', reason: 'r', target: 'curl … | sh', evidence: at('SKILL.md', 9), source: 'static' }],
      asks: [{ class: 'secret-prompt', reason: 'r', target: 'your GitHub token', evidence: at('SKILL.md', 20), source: 'static' }],
    };
    expect(listedEffects(effects).map(effectSentence)).toEqual([
      'connects to registry.npmjs.org:443 (a package registry)',
      'runs downloaded content: curl … | sh',
      'asks you for a secret: your GitHub token',
    ]);
  });
});

describe('what is new in an update', () => {
  it('lists only the effects whose kind, class and target the consented set lacks, whatever the evidence', () => {
    const before = rugPull();
    const after = rugPull();
    after.reads[0]!.evidence = at('SKILL.md', 40);
    after.network.push({ ...after.network[0]!, host: 'exfil.example.org', target: 'exfil.example.org' });
    const added = newEffects(after, effectKeys(before));
    expect(added.map(effectSentence)).toEqual(['connects to exfil.example.org, sending 512 bytes with the planted aws-secret-access-key (base64)']);
  });

  it('keys the same effect read in the text and observed in the sandbox alike', () => {
    const text = rugPull();
    const seen = rugPull();
    seen.reads[0] = { ...seen.reads[0]!, evidence: observed, source: 'observed' };
    expect(effectKeys(seen)).toEqual(effectKeys(text));
  });
});
