import { describe, expect, it } from 'vitest';
import { judgeBehaviour } from '#core/behaviour/judge';
import { describeEvidence, type Effects, noEffects, type ObservedEvidence } from '#core/effects/effect';

const at = (event: string): ObservedEvidence => ({ step: 'scripts/run.sh', event, clock: 'now' });
const effects = (more: Partial<Effects>): Effects => ({ ...noEffects(), ...more });

const post = (host: string, honeytokens: Array<{ token: string; encoding: string[] }> = [], cls: 'host' | 'package-registry' = 'host') => ({
  class: cls,
  reason: 'r',
  target: host,
  host,
  protocol: 'http' as const,
  sent: { bytes: 100, honeytokens: honeytokens.map((h) => ({ ...h, class: 'cloud-credentials' as const })) },
  evidence: at(`HTTP POST ${host}/u (198.18.0.3:80), 100 bytes sent`),
  source: 'observed' as const,
});
const bashrc = {
  class: 'developer-tools' as const,
  row: 'shell-startup',
  reason: 'is a shell start-up file',
  target: '~/.bashrc',
  evidence: at('openat ~/.bashrc (write)'),
  source: 'observed' as const,
};

describe('judging on evidence', () => {
  it('is clean with no effect, or with reads, project writes and network that prove nothing', () => {
    expect(judgeBehaviour(noEffects())).toEqual({ verdict: 'clean', evidence: [] });
    const quiet = effects({
      writes: [{ class: 'project', reason: 'r', target: './out', evidence: at('openat ./out (write)'), source: 'observed' }],
      network: [post('api.example.org')],
    });
    expect(judgeBehaviour(quiet).verdict).toBe('clean');
  });

  it('refuses a honeytoken sent in any encoding, naming the token, the host and the event', () => {
    const judged = judgeBehaviour(effects({ network: [post('c.example', [{ token: 'aws-secret-access-key', encoding: ['base64', 'gzip'] }])] }));
    expect(judged).toEqual({
      verdict: 'malicious',
      evidence: [
        {
          verdict: 'malicious',
          rule: 'honeytoken-sent',
          message:
            'sent the planted aws-secret-access-key (base64 in gzip) to c.example: scripts/run.sh: HTTP POST c.example/u (198.18.0.3:80), 100 bytes sent',
          evidence: at('HTTP POST c.example/u (198.18.0.3:80), 100 bytes sent'),
        },
      ],
    });
  });

  it('refuses downloaded or decoded content run', () => {
    const run = (cls: 'downloaded-content' | 'decoded-content') => ({
      class: cls,
      reason: 'r',
      target: 'x.example/i.sh',
      evidence: at('execve of the canary'),
      source: 'observed' as const,
    });
    expect(judgeBehaviour(effects({ executes: [run('downloaded-content')] })).evidence.map((b) => [b.verdict, b.rule])).toEqual([
      ['malicious', 'downloaded-code-run'],
    ]);
    expect(judgeBehaviour(effects({ executes: [run('decoded-content')] })).evidence.map((b) => [b.verdict, b.rule])).toEqual([
      ['malicious', 'decoded-code-run'],
    ]);
    const install = { class: 'package-install' as const, reason: 'r', target: 'npm install', evidence: at('execve npm install'), source: 'observed' as const };
    expect(judgeBehaviour(effects({ executes: [install] })).verdict).toBe('clean');
  });

  it('flags persistence, and refuses it beside network to anyone but a package registry', () => {
    expect(judgeBehaviour(effects({ writes: [bashrc] })).evidence.map((b) => [b.verdict, b.rule, describeEvidence(b.evidence)])).toEqual([
      ['suspicious', 'persistence', 'scripts/run.sh: openat ~/.bashrc (write)'],
    ]);
    expect(judgeBehaviour(effects({ writes: [bashrc], network: [post('registry.npmjs.org', [], 'package-registry')] })).verdict).toBe('suspicious');
    const both = judgeBehaviour(effects({ writes: [bashrc], network: [post('beacon.example')] }));
    expect(both.verdict).toBe('malicious');
    expect(both.evidence[0]!.message).toContain('and talked to beacon.example');
  });

  it('flags an install from a host that is not its registry, naming the host and the connection', () => {
    const foreign = {
      class: 'foreign-index' as const,
      reason: 'installs packages from a host that is not its ecosystem’s registry',
      target: 'pkgs.example.net',
      evidence: at('connect to pkgs.example.net (198.18.0.4:443) under python3 -m pip install'),
      source: 'observed' as const,
    };
    expect(judgeBehaviour(effects({ executes: [foreign] })).evidence.map((b) => [b.verdict, b.rule, b.message])).toEqual([
      [
        'suspicious',
        'foreign-index',
        'installed packages from pkgs.example.net: scripts/run.sh: connect to pkgs.example.net (198.18.0.4:443) under python3 -m pip install',
      ],
    ]);
  });

  it('refuses a key authorised to log in to this machine with no call home, and keeps a cloud grant’s command to the writes’ rule', () => {
    const authorized = {
      ...bashrc,
      class: 'privilege-grant' as const,
      row: 'ssh-authorized-keys',
      target: '~/.ssh/authorized_keys',
      evidence: at('openat ~/.ssh/authorized_keys (write)'),
    };
    expect(judgeBehaviour(effects({ writes: [authorized] })).evidence.map((b) => [b.verdict, b.rule])).toEqual([['malicious', 'access-granted']]);
    const iam = { ...authorized, row: 'aws-iam-policy', target: 'aws iam attach-role-policy', evidence: at('execve aws iam attach-role-policy') };
    expect(judgeBehaviour(effects({ writes: [iam] })).evidence.map((b) => [b.verdict, b.rule])).toEqual([['suspicious', 'persistence']]);
  });

  it('flags a run that outgrew its trace, for the rest of it was not seen', () => {
    expect(judgeBehaviour(noEffects(), [{ budget: 'step-time' }]).verdict).toBe('clean');
    expect(judgeBehaviour(noEffects(), [{ budget: 'trace', clock: 'year-ahead' }]).evidence).toMatchObject([{ verdict: 'suspicious', rule: 'unobserved' }]);
  });
});
