import { describe, expect, it } from 'vitest';
import {
  expandBraces,
  formatOfPath,
  interpreterOf,
  looksLikeCode,
  rowForEnv,
  rowForKey,
  rowForPath,
  rowsForCommand,
  rowsForHost,
  scopeOf,
} from '#core/effects/classify';
import { ASK_CLASSES, EXECUTE_CLASSES, NETWORK_CLASSES, READ_CLASSES, WRITE_CLASSES, type EffectKind } from '#core/effects/effect';
import { effectsSchema } from '#core/effects/effects-schema';
import { SENSITIVE_ROWS, type SensitiveRow } from '#core/effects/sensitive-classes';

/** Splits an example command line as a shell would, quotes kept together (enough for the table's examples). */
function argv(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** The row the engine picks for a row's own example, by what the row matches. */
function rowForExample(row: SensitiveRow): SensitiveRow | undefined {
  const m = row.match;
  if ('path' in m) return rowForPath(row.effect, row.example);
  if ('key' in m) return rowForKey(m.format, row.example);
  if ('command' in m) return rowsForCommand(argv(row.example)).find((r) => r.effect === row.effect);
  if ('env' in m) return rowForEnv(row.example);
  return rowsForHost(row.example).find((r) => r.effect === row.effect);
}

const CLASSES: Record<EffectKind, readonly string[]> = {
  reads: READ_CLASSES,
  writes: WRITE_CLASSES,
  network: NETWORK_CLASSES,
  executes: EXECUTE_CLASSES,
  asks: ASK_CLASSES,
};

describe('the sensitive-classes table', () => {
  it('has rows with unique ids, each of a class its effect knows', () => {
    const ids = SENSITIVE_ROWS.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(SENSITIVE_ROWS.filter((r) => !CLASSES[r.effect].includes(r.class)).map((r) => r.id)).toEqual([]);
  });

  it('classifies every row’s example by that row itself (a row another shadows fails here)', () => {
    const wrong = SENSITIVE_ROWS.filter((row) => rowForExample(row)?.id !== row.id).map((row) => `${row.id}: ${row.example} → ${rowForExample(row)?.id}`);
    expect(wrong).toEqual([]);
  });

  it('gives every read class and every write class but the fallbacks at least one row', () => {
    const present = new Set(SENSITIVE_ROWS.map((r) => r.class));
    expect(READ_CLASSES.filter((c) => !present.has(c))).toEqual([]);
    expect(WRITE_CLASSES.filter((c) => !present.has(c))).toEqual(['project', 'elsewhere']);
  });
});

describe('the classes engine', () => {
  it('reads paths from home, project or root, with * inside a name and ** across folders', () => {
    expect(rowForPath('reads', '~/.aws/credentials')?.class).toBe('cloud-credentials');
    expect(rowForPath('reads', '~/.aws/config')).toBeUndefined();
    expect(rowForPath('reads', '~/work/app/.env')?.class).toBe('dotenv');
    expect(rowForPath('reads', './deep/er/.env')?.class).toBe('dotenv');
    expect(rowForPath('reads', '~/.config/google-chrome/Profile 2/Cookies')?.class).toBe('browser-data');
  });

  it('leaves a public key, a .env example and a skill’s own notes alone', () => {
    expect(rowForPath('reads', '~/.ssh/id_ed25519.pub')).toBeUndefined();
    expect(rowForPath('reads', './.env.example')).toBeUndefined();
    expect(rowForPath('writes', './docs/CLAUDE.md')).toBeUndefined();
  });

  it('reads config keys case-insensitively, with the keys under a row’s key and URLs that hold dots', () => {
    expect(rowForKey('git-config', 'core.fsmonitor')?.id).toBe('git-fsmonitor');
    expect(rowForKey('git-config', 'core.fsmonitorx')).toBeUndefined();
    expect(rowForKey('git-config', 'url.https://mirror.example.org/.insteadof')?.id).toBe('git-url-rewrite');
    expect(rowForKey('git-config', 'credential.https://github.com.helper')?.id).toBe('git-credential-helper');
    expect(rowForKey('json', 'hooks.PreToolUse.0.hooks.0.command')?.id).toBe('agent-hooks');
    expect(rowForKey('json', 'env.ANTHROPIC_BASE_URL')?.id).toBe('agent-api-base-url');
    expect(rowForKey('json', 'theme')).toBeUndefined();
  });

  it('matches a command by its program and words in order, whatever stands between', () => {
    expect(rowsForCommand(['/usr/bin/pip3', 'install', '--no-cache-dir', '--extra-index-url=https://x.example/simple', 'lib']).map((r) => r.id)).toEqual([
      'pip-foreign-index',
      'pip-install',
    ]);
    expect(rowsForCommand(['pip', 'install', '--no-cache-dir', 'requests']).map((r) => r.id)).toEqual(['pip-install']);
    expect(rowsForCommand(['crontab', '-l'])).toEqual([]);
    expect(rowsForCommand(['base64', '-w0', 'file'])).toEqual([]);
    expect(rowsForCommand(['base64', '-d']).map((r) => r.class)).toEqual(['decoded-content']);
  });

  it('knows hosts, secret variables, formats, scopes and interpreters', () => {
    expect(rowsForHost('FILES.pythonhosted.org').map((r) => r.class)).toEqual(['package-registry']);
    expect(rowsForHost('collector.example.org')).toEqual([]);
    expect(rowForEnv('AWS_SECRET_ACCESS_KEY')?.class).toBe('secret-env');
    expect(rowForEnv('PATH')).toBeUndefined();
    expect(formatOfPath('./.claude/settings.json')).toBe('json');
    expect(formatOfPath('~/.gitconfig')).toBe('git-config');
    expect(scopeOf('./.mcp.json')).toBe('project');
    expect(scopeOf('~/.claude.json')).toBe('global');
    expect(interpreterOf('/usr/bin/python3.11')?.inline).toEqual(['-c']);
    expect(interpreterOf('jq')).toBeUndefined();
    expect(looksLikeCode('scripts/run.py')).toBe(true);
    expect(looksLikeCode('assets/logo.png')).toBe(false);
  });

  it('expands alternatives in braces, several groups in one pattern', () => {
    expect(expandBraces('~/.{a,b}/{x,y}.md')).toEqual(['~/.a/x.md', '~/.a/y.md', '~/.b/x.md', '~/.b/y.md']);
    expect(expandBraces('plain')).toEqual(['plain']);
  });
});

describe('the effects schema', () => {
  const observed = { step: 'SKILL.md:12 (bash)', event: 'openat ~/.aws/credentials (read)', clock: 'now' } as const;

  it('accepts static and observed effects of every kind', () => {
    const effects = {
      reads: [{ class: 'cloud-credentials', row: 'aws-credentials', reason: 'r', target: '~/.aws/credentials', evidence: observed, source: 'observed' }],
      writes: [
        {
          class: 'agent-config',
          row: 'agent-hooks',
          reason: 'r',
          target: '~/.claude/settings.json',
          scope: 'global',
          evidence: { file: 'scripts/a.sh', line: 3 },
          source: 'static',
        },
      ],
      network: [
        {
          class: 'host',
          reason: 'r',
          target: 'collect.example.org:443',
          host: 'collect.example.org',
          port: 443,
          protocol: 'tls',
          sent: { bytes: 120, honeytokens: [{ token: 'aws-secret-access-key', class: 'cloud-credentials', encoding: ['base64'] }] },
          evidence: observed,
          source: 'observed',
        },
      ],
      executes: [],
      asks: [],
    };
    expect(effectsSchema.parse(effects)).toEqual(effects);
  });

  it('refuses a class its kind does not have and evidence of neither shape', () => {
    const bad = {
      reads: [{ class: 'project', reason: 'r', target: 'x', evidence: observed, source: 'observed' }],
      writes: [],
      network: [],
      executes: [],
      asks: [],
    };
    expect(effectsSchema.safeParse(bad).success).toBe(false);
    const noEvidence = {
      reads: [],
      writes: [{ class: 'project', reason: 'r', target: 'x', evidence: { file: 'a' }, source: 'static' }],
      network: [],
      executes: [],
      asks: [],
    };
    expect(effectsSchema.safeParse(noEvidence).success).toBe(false);
  });
});
