import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closest } from '#cli/did-you-mean';
import { runInProcess } from '../support/cli-in-process.ts';
import { skillRoutes, startFakeRegistry } from '../support/fake-registry.ts';

const work = mkdtempSync(join(tmpdir(), 'skillpress-did-you-mean-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const env = { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config') };

describe('did you mean', () => {
  it('names the closest names within about one edit per three letters, nearest first', () => {
    const names = ['install', 'uninstall', 'info', 'init', 'list', 'login', 'logout', 'publish', 'search'];
    expect(closest('instal', names)).toEqual(['install']);
    expect(closest('isntall', names)).toEqual(['install']);
    expect(closest('serach', names)).toEqual(['search']);
    expect(closest('lgout', names)).toEqual(['logout']);
    expect(closest('xyz', names)).toEqual([]);
    expect(closest('pretty-jsn', ['pretty-json', 'pretty-yaml', 'json-pretty'])).toEqual(['pretty-json']);
  });

  it('suggests a command for a typo, and a skill from the catalog for an unknown slug', async () => {
    const typo = await runInProcess(['instal', 'x', '--json'], { cwd: work, env });
    expect(typo.code).toBe(1);
    expect(typo.json.error.message).toBe('unknown command "instal": did you mean "install"?');

    const routes = skillRoutes([{ slug: 'pretty-json' }]);
    const registry = await startFakeRegistry((url, headers) =>
      url.pathname === '/.well-known/skills.json'
        ? { body: { schemaVersion: 1, count: 2, skills: [{ slug: 'pretty-json' }, { slug: 'pretty-yaml' }] } }
        : routes(url, headers),
    );
    try {
      const unknown = await runInProcess(['install', 'pretty-jsn', '--json', '--registry', registry.url], { cwd: work, env });
      expect(unknown.code).toBe(1);
      expect(unknown.json.error).toMatchObject({ code: 'not_found', hint: 'did you mean "pretty-json"?' });
      const far = await runInProcess(['install', 'nothing-like-it', '--json', '--registry', registry.url], { cwd: work, env });
      expect(far.json.error.hint).toBe('search for it with skillpress search <words>');
    } finally {
      await registry.close();
    }
  });
});
