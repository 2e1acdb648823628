import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Effects, noEffects } from '#core/effects/effect';
import { runInProcess, terminalTyping } from '../support/cli-in-process.ts';
import { fakeRegistryWorkspace, type Route } from '../support/fake-registry.ts';
import { type ObservedVersion, observedSkillRoutes } from '../support/observed-registry.ts';

/**
 * Trust by behaviour as the client shows it (docs/api.md, "Behaviour"): install prints what a
 * version does outside its folder when run, with its evidence, and asks on a terminal; update
 * shows only what the new version adds; `--yes`, `--strict` and no terminal decide as documented;
 * a range or `latest` chooses the newest cleared version, `--allow-pending` a pending one, never a
 * refused one, and an exact version resolves whatever its behaviour.
 */

const { work, env, start } = fakeRegistryWorkspace('effects-consent');

let projects = 0;
function project(): string {
  const dir = join(work, `project-${++projects}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Serves `routes` for the rest of the test; the registry can be swapped (a new version published) while its address stays. */
async function serve(first: Route): Promise<{ url: string; publish: (next: Route) => void }> {
  let route = first;
  const registry = await start((url, headers) => route(url, headers));
  return { url: registry.url, publish: (next) => (route = next) };
}

const cli = (cwd: string, url: string, args: string[], stdin?: Parameters<typeof runInProcess>[1]['stdin']) =>
  runInProcess([...args, '--registry', url], { cwd, env, ...(stdin ? { stdin } : {}) });

const lockOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'skillpress-lock.json'), 'utf8'));
/** Each of `lines` is printed, in any order. */
function expectShown(text: string, lines: string[]): void {
  for (const line of lines) expect(text).toContain(line);
}

const installed = (dir: string, slug: string) => existsSync(join(dir, '.agents/skills', slug, 'SKILL.md'));

const READS_AWS: Effects['reads'][number] = {
  class: 'cloud-credentials',
  row: 'aws-credentials',
  reason: 'holds cloud credentials',
  target: '~/.aws/credentials',
  evidence: { file: 'scripts/sync.sh', line: 3 },
  source: 'static',
};

function talksTo(host: string, step = 'scripts/sync.sh'): Effects['network'][number] {
  return {
    class: 'host',
    reason: 'sends to anyone',
    target: host,
    host,
    port: 443,
    protocol: 'tls',
    sent: { bytes: 96, honeytokens: [] },
    evidence: { step, event: `connect ${host}:443`, clock: 'now' },
    source: 'observed',
  };
}

const CRON: Effects['writes'][number] = {
  class: 'system-persistence',
  row: 'crontab',
  reason: 'runs again on its own',
  target: 'crontab -',
  scope: 'global',
  evidence: { step: 'scripts/sync.sh --help', event: 'execve crontab -', clock: 'year-ahead' },
  source: 'observed',
};

const effects = (over: Partial<Effects>): Effects => ({ ...noEffects(), ...over });

describe('skillpress install shows effects beyond the folder', () => {
  const syncing: ObservedVersion[] = [
    { version: '1.0.0', behaviour: 'cleared', effects: effects({ reads: [READS_AWS], network: [talksTo('api.example.com')] }) },
  ];

  it('prints each effect in plain words with its evidence, and with no terminal goes ahead and records what it accepted', async () => {
    const { url } = await serve(observedSkillRoutes('cloud-sync', syncing));
    const dir = project();
    const result = await cli(dir, url, ['install', 'cloud-sync']);
    expect(result.code, result.stderr).toBe(0);
    expectShown(result.stdout, [
      'cloud-sync@1.0.0 when run:',
      '• reads your cloud credentials: ~/.aws/credentials',
      'in the text: scripts/sync.sh:3',
      '• connects to api.example.com:443, sending 96 bytes',
      'observed: scripts/sync.sh: connect api.example.com:443',
    ]);
    expect(result.stderr).toMatch(/no terminal to ask: going ahead with the effects of cloud-sync@1\.0\.0 \(--strict refuses instead\)/);
    expect(installed(dir, 'cloud-sync')).toBe(true);
    expect(lockOf(dir).skills['cloud-sync'].consented).toEqual([
      JSON.stringify(['network', 'host', 'api.example.com']),
      JSON.stringify(['reads', 'cloud-credentials', '~/.aws/credentials']),
    ]);
  });

  it('refuses with --strict and no terminal (consent_required, exit 1, nothing written), and installs with --strict --yes', async () => {
    const { url } = await serve(observedSkillRoutes('cloud-sync', syncing));
    const dir = project();
    const refused = await cli(dir, url, ['install', 'cloud-sync', '--strict', '--json']);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatchObject({
      code: 'consent_required',
      details: { versions: [expect.objectContaining({ slug: 'cloud-sync', version: '1.0.0', effects: expect.any(Array) })] },
    });
    expect(existsSync(join(dir, 'skillpress-lock.json'))).toBe(false);
    expect(installed(dir, 'cloud-sync')).toBe(false);
    const accepted = await cli(dir, url, ['install', 'cloud-sync', '--strict', '--yes', '--json']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.json.consent).toMatchObject({ decision: 'accepted', by: 'yes' });
  });

  it('asks on a terminal: no installs nothing (consent_declined), yes installs', async () => {
    const { url } = await serve(observedSkillRoutes('cloud-sync', syncing));
    const dir = project();
    const declined = await cli(dir, url, ['install', 'cloud-sync'], terminalTyping('n\n'));
    expect(declined.stderr).toContain('Install cloud-sync@1.0.0 with these effects? [y/N]');
    expect(declined.code).toBe(1);
    expect(declined.stderr).toMatch(/consent_declined/);
    expect(installed(dir, 'cloud-sync')).toBe(false);
    const accepted = await cli(dir, url, ['install', 'cloud-sync'], terminalTyping('y\n'));
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(installed(dir, 'cloud-sync')).toBe(true);
  });

  it('gives the effects, their evidence and the decision in --json', async () => {
    const { url } = await serve(observedSkillRoutes('cloud-sync', syncing));
    const result = await cli(project(), url, ['install', 'cloud-sync', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json.consent).toEqual({
      decision: 'accepted',
      by: 'no_terminal',
      versions: [
        {
          slug: 'cloud-sync',
          version: '1.0.0',
          behaviour: 'cleared',
          observed: true,
          effects: [
            {
              kind: 'reads',
              class: 'cloud-credentials',
              target: '~/.aws/credentials',
              sentence: 'reads your cloud credentials: ~/.aws/credentials',
              evidence: [{ source: 'static', at: 'scripts/sync.sh:3' }],
            },
            {
              kind: 'network',
              class: 'host',
              target: 'api.example.com',
              sentence: 'connects to api.example.com:443, sending 96 bytes',
              evidence: [{ source: 'observed', at: 'scripts/sync.sh: connect api.example.com:443' }],
            },
          ],
        },
      ],
    });
  });

  it('neither asks nor refuses for a version with no effects, or one published before observation, which says so', async () => {
    const { url, publish } = await serve(observedSkillRoutes('quiet', [{ version: '1.0.0', behaviour: 'cleared', effects: noEffects() }]));
    const quiet = await cli(project(), url, ['install', 'quiet', '--strict'], terminalTyping('n\n'));
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain('quiet@1.0.0 does nothing outside its folder when run');
    expect(quiet.stderr).not.toContain('[y/N]');
    publish(observedSkillRoutes('older', [{ version: '1.0.0' }]));
    const older = await cli(project(), url, ['install', 'older', '--strict', '--json']);
    expect(older.code, older.stderr).toBe(0);
    expect(older.json.consent).toEqual({
      decision: 'not_needed',
      versions: [{ slug: 'older', version: '1.0.0', behaviour: 'cleared', observed: false, effects: [] }],
    });
    const text = await cli(project(), url, ['install', 'older']);
    expect(text.stdout).toContain('older@1.0.0 was published before skills were observed: what it does when run is not known');
  });

  it('refuses effects the registry serves malformed (bad_response, exit 2)', async () => {
    const { url } = await serve(observedSkillRoutes('garbled', [{ version: '1.0.0', behaviour: 'cleared', effects: { reads: 'everything' } }]));
    const dir = project();
    const result = await cli(dir, url, ['install', 'garbled', '--yes', '--json']);
    expect(result.code).toBe(2);
    expect(result.json.error).toMatchObject({ code: 'bad_response', message: expect.stringContaining('effects of garbled@1.0.0 are malformed') });
    expect(installed(dir, 'garbled')).toBe(false);
  });
});

describe('which version install and update choose', () => {
  const observed: ObservedVersion[] = [
    { version: '1.0.0', behaviour: 'cleared', effects: noEffects() },
    { version: '1.1.0', behaviour: 'refused', effects: effects({ network: [talksTo('exfil.example.org')] }) },
    { version: '1.2.0', behaviour: 'pending', effects: noEffects() },
  ];

  it('installs the newest cleared version by default, the pending one with --allow-pending, never the refused one', async () => {
    const { url } = await serve(observedSkillRoutes('watched', observed));
    const plain = await cli(project(), url, ['install', 'watched', '--json']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.json.installed).toEqual([expect.objectContaining({ slug: 'watched', version: '1.0.0' })]);
    const ranged = await cli(project(), url, ['install', 'watched@^1.0.0', '--json']);
    expect(ranged.json.installed).toEqual([expect.objectContaining({ version: '1.0.0' })]);
    const pending = await cli(project(), url, ['install', 'watched', '--allow-pending', '--json']);
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.json.installed).toEqual([expect.objectContaining({ version: '1.2.0' })]);
    expect(pending.stderr).toContain('watched@1.2.0 is still being observed by the registry');
  });

  it('resolves an exact version whatever its behaviour, and says what it is', async () => {
    const { url } = await serve(observedSkillRoutes('watched', observed));
    const refused = await cli(project(), url, ['install', 'watched@1.1.0', '--yes', '--json']);
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.json.installed).toEqual([expect.objectContaining({ version: '1.1.0' })]);
    expect(refused.stderr).toContain("watched@1.1.0 was refused by the registry's observation");
    expect(refused.json.consent.versions).toEqual([expect.objectContaining({ version: '1.1.0', behaviour: 'refused' })]);
  });

  it('tells a skill with nothing cleared yet to wait or pass --allow-pending', async () => {
    const { url } = await serve(observedSkillRoutes('brand-new', [{ version: '1.0.0', behaviour: 'pending', effects: noEffects() }]));
    const result = await cli(project(), url, ['install', 'brand-new', '--json']);
    expect(result.code).toBe(1);
    expect(result.json.error).toMatchObject({
      code: 'no_matching_version',
      hint: expect.stringContaining('1.0.0 is still being observed by the registry: wait, or pass --allow-pending'),
    });
  });
});

describe('skillpress update shows only what the new version adds', () => {
  const first: ObservedVersion = { version: '1.0.0', behaviour: 'cleared', effects: effects({ reads: [READS_AWS], network: [talksTo('api.example.com')] }) };
  // The same effects read at other lines, plus a new host and a cron job: the rug pull.
  const rugPull: ObservedVersion = {
    version: '1.1.0',
    behaviour: 'cleared',
    effects: effects({
      reads: [{ ...READS_AWS, evidence: { file: 'scripts/sync.sh', line: 30 } }],
      network: [talksTo('api.example.com', 'SKILL.md:9 (bash)'), talksTo('exfil.example.org')],
      writes: [CRON],
    }),
  };

  it('lists the new host and the persistence write as the diff, refuses them under --strict, and applies them with --yes', async () => {
    const { url, publish } = await serve(observedSkillRoutes('cloud-sync', [first]));
    const dir = project();
    expect((await cli(dir, url, ['install', 'cloud-sync', '--yes'])).code).toBe(0);
    const before = readFileSync(join(dir, 'skillpress-lock.json'), 'utf8');
    publish(observedSkillRoutes('cloud-sync', [first, rugPull]));

    const preview = await cli(dir, url, ['update', '--dry-run']);
    expect(preview.code, preview.stderr).toBe(0);
    expectShown(preview.stdout, [
      'cloud-sync@1.1.0 adds, since 1.0.0, when run:',
      '• connects to exfil.example.org:443, sending 96 bytes',
      '• writes what your system starts on its own (persistence) (global): crontab -',
      'observed: scripts/sync.sh --help (clock a year ahead): execve crontab -',
    ]);
    expect(preview.stdout).not.toContain('api.example.com');
    expect(preview.stdout).not.toContain('cloud credentials');

    const strict = await cli(dir, url, ['update', '--strict', '--json']);
    expect(strict.code).toBe(1);
    expect(strict.json.error.code).toBe('consent_required');
    expect(strict.json.error.details.versions[0].effects.map((e: { target: string }) => e.target)).toEqual(['crontab -', 'exfil.example.org']);
    expect(readFileSync(join(dir, 'skillpress-lock.json'), 'utf8')).toBe(before);

    const asked = await cli(dir, url, ['update'], terminalTyping('no\n'));
    expect(asked.stderr).toContain('Update to cloud-sync@1.1.0 with these effects? [y/N]');
    expect(asked.code).toBe(1);
    expect(readFileSync(join(dir, 'skillpress-lock.json'), 'utf8')).toBe(before);

    const applied = await cli(dir, url, ['update', '--yes', '--json']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.json.consent).toMatchObject({ decision: 'accepted', by: 'yes', versions: [expect.objectContaining({ since: '1.0.0' })] });
    expect(lockOf(dir).skills['cloud-sync']).toMatchObject({
      version: '1.1.0',
      consented: expect.arrayContaining([JSON.stringify(['network', 'host', 'exfil.example.org'])]),
    });
  });

  it('does not let a lockfile accept effects the installed version never had', async () => {
    const { url, publish } = await serve(observedSkillRoutes('cloud-sync', [first]));
    const dir = project();
    expect((await cli(dir, url, ['install', 'cloud-sync', '--yes'])).code).toBe(0);
    const lock = lockOf(dir);
    lock.skills['cloud-sync'].consented.push(
      JSON.stringify(['network', 'host', 'exfil.example.org']),
      JSON.stringify(['writes', 'system-persistence', 'crontab -']),
    );
    writeFileSync(join(dir, 'skillpress-lock.json'), JSON.stringify(lock));
    publish(observedSkillRoutes('cloud-sync', [first, rugPull]));
    const result = await cli(dir, url, ['update', '--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json.consent.versions[0].effects.map((e: { target: string }) => e.target)).toEqual(['crontab -', 'exfil.example.org']);
  });

  it('refuses a lockfile whose accepted effects are not a list of keys', async () => {
    const { url } = await serve(observedSkillRoutes('cloud-sync', [first]));
    const dir = project();
    expect((await cli(dir, url, ['install', 'cloud-sync', '--yes'])).code).toBe(0);
    const lock = lockOf(dir);
    lock.skills['cloud-sync'].consented = { all: true };
    writeFileSync(join(dir, 'skillpress-lock.json'), JSON.stringify(lock));
    const result = await cli(dir, url, ['update', '--json']);
    expect(result.code).toBe(1);
    expect(result.json.error).toMatchObject({ code: 'lockfile_invalid', message: expect.stringContaining('consented must be a list') });
  });
});
