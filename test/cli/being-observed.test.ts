import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registryPath } from '#core/static-paths';
import { runInProcess } from '../support/cli-in-process.ts';
import { fileTree } from '../support/file-tree.ts';
import { fakeRegistryWorkspace, skillRoutes } from '../support/fake-registry.ts';

/**
 * A new skill whose first version the registry still runs in its sandbox has, on both registry
 * paths, only who it is and `status: "pending"` (docs/api.md §11.2): the client says so, as the
 * delivery's `being_observed` would, rather than reading it as a full document.
 */

const { work, env, start } = fakeRegistryWorkspace('being-observed');
const PENDING = { id: 'fake-new', slug: 'fresh-skill', name: 'Fresh Skill', author: 'alice', status: 'pending' };

/** A registry that serves the pending shape for `fresh-skill` and its signing keys as usual. */
async function serve(): Promise<string> {
  const rest = skillRoutes([]);
  const registry = await start((url, headers) =>
    url.pathname === registryPath('fresh-skill') || url.pathname === `${registryPath('fresh-skill')}/versions` ? { body: PENDING } : rest(url, headers),
  );
  return registry.url;
}

describe('a new skill being observed', () => {
  it('is not installed: exit 1, being_observed, nothing written', async () => {
    const project = join(work, 'project');
    mkdirSync(project, { recursive: true });
    const result = await runInProcess(['install', 'fresh-skill', '--json', '--registry', await serve()], { cwd: project, env });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.json.error).toMatchObject({ code: 'being_observed', message: expect.stringContaining('fresh-skill is new') });
    expect(fileTree(project)).toEqual([]);
  });

  it('leaves it alone in publish --all, which finishes: its first version cannot be compared until its run ends', async () => {
    const repo = join(work, 'repo');
    mkdirSync(join(repo, 'fresh-skill'), { recursive: true });
    writeFileSync(join(repo, 'fresh-skill', 'SKILL.md'), '---\nname: fresh-skill\ndescription: Fresh. Use in tests.\n---\n# Fresh\n');
    const registry = await serve();
    const dryRun = await runInProcess(['publish', '--all', '--dry-run', '--json', '--registry', registry], { cwd: repo, env });
    expect(dryRun.code, dryRun.stdout + dryRun.stderr).toBe(0);
    expect(dryRun.json.skills).toEqual([expect.objectContaining({ slug: 'fresh-skill', action: 'observing', published: false })]);
    const run = await runInProcess(['publish', '--all', '--registry', registry], { cwd: repo, env: { ...env, SKILLPRESS_API_KEY: 'sk_test' } });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toMatch(/Nothing to publish: 0 unchanged, 1 being observed/);
  });

  it('refuses to number its next version with being_observed until its run ends', async () => {
    const dir = join(work, 'repo', 'fresh-skill');
    const result = await runInProcess(['version', 'patch', '--json', '--registry', await serve()], {
      cwd: dir,
      env: { ...env, SKILLPRESS_API_KEY: 'sk_test' },
    });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.json.error).toMatchObject({ code: 'being_observed' });
  });
});
