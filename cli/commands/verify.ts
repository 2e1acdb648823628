import { join } from 'node:path';
import { mapLimit } from '../../core/map-limit.ts';
import { CliError } from '../cli-error.ts';
import { projectScope } from '../install-scope.ts';
import { folderMatches, readLockfile } from '../install-tree.ts';
import type { LockedSkill } from '../lockfile.ts';
import { clientsFor, RegistryClient } from '../registry-client.ts';
import type { CommandIo } from '../ui.ts';
import { plural } from '../ui.ts';
import { badSignature, signatureProblem, summaryFacts } from '../verify-signature.ts';
import { pinLockfileKeys } from '../installer.ts';

export interface VerifiedSkill {
  slug: string;
  version: string;
  path: string;
  /** `ok`, or the first thing that does not hold. */
  state: 'ok' | 'modified' | 'unlisted' | 'integrity_changed' | 'files_changed' | 'bad_signature';
  problem?: string;
}

export interface VerifyResult {
  skills: VerifiedSkill[];
}

/**
 * `skillpress verify`: rechecks every installed skill of the project, without changing anything.
 * Its files on disk against the lockfile's digests; the lockfile's integrity against what the
 * registry publishes for that version now (and, for a current version, its per-file digests);
 * and the registry's signature of that integrity and of the provenance, verdict and yank it lists,
 * fetched afresh, against the keys the client trusts for the registry: those the lockfile records
 * as having signed its skills among them (cli/trust.ts, docs/api.md §11.11). Any mismatch is exit 3: `bad_signature` when a signature does not hold,
 * else `integrity_mismatch`.
 */
export async function verify(options: { registry: string; registryChosen: boolean }, io: CommandIo): Promise<VerifyResult> {
  const { ui } = io;
  const { c } = ui;
  const lock = await readLockfile(projectScope(io.cwd), ui.line);
  const entries = [...(lock?.skills ?? [])].sort(([a], [b]) => (a < b ? -1 : 1));
  const clientFor = clientsFor(new RegistryClient(options.registry, io), io, options.registryChosen);
  if (lock) pinLockfileKeys(lock, clientFor);
  const skills = await mapLimit(entries, 8, ([slug, entry]) => verifyOne(io.cwd, slug, entry, clientFor(entry.registry)));
  for (const s of skills) {
    const mark = s.state === 'ok' ? c.green('✓') : c.red('✗');
    ui.line(`${mark} ${s.slug}@${s.version} ${c.dim(s.path)}${s.problem ? `: ${s.problem}` : ''}`);
  }
  const failed = skills.filter((s) => s.state !== 'ok');
  if (failed.length > 0) {
    const code = failed.some((s) => s.state === 'bad_signature') ? 'bad_signature' : 'integrity_mismatch';
    throw new CliError(code, `${plural(failed.length, 'installed skill')} failed verification`, {
      details: { failed: failed.map((s) => `${s.slug}@${s.version}: ${s.state}`) },
      hint: 'skillpress install reinstalls what the lockfile names; report a bad signature to the registry',
    });
  }
  ui.line(entries.length === 0 ? 'No skills installed.' : `${plural(entries.length, 'skill')} verified against the lockfile and the registry's signatures.`);
  return { skills };
}

async function verifyOne(cwd: string, slug: string, entry: LockedSkill, client: RegistryClient): Promise<VerifiedSkill> {
  const found = { slug, version: entry.version, path: entry.path };
  const fail = (state: VerifiedSkill['state'], problem: string): VerifiedSkill => ({ ...found, state, problem });
  if (!(await folderMatches(join(cwd, entry.path), entry.files))) return fail('modified', 'its files differ from the lockfile');
  const doc = await client.skill(slug);
  const summary = doc.versions.find((v) => v.version === entry.version) ?? (await client.versions(slug)).versions.find((v) => v.version === entry.version);
  if (!summary) return fail('unlisted', `the registry no longer lists ${entry.version}`);
  if (summary.integrity !== entry.integrity)
    return fail('integrity_changed', 'the registry publishes another integrity for this version than the lockfile holds');
  if (doc.currentVersion === entry.version && !sameFiles(doc.files, entry.files))
    return fail('files_changed', "the registry's file digests differ from the lockfile's");
  const problem = await signatureProblem(client, summaryFacts(slug, summary), summary.signature);
  if (problem) return fail('bad_signature', badSignature(`${slug}@${entry.version}`, problem, client.base).message);
  return { ...found, state: 'ok' };
}

function sameFiles(a: readonly { filename: string; sha256: string }[], b: readonly { filename: string; sha256: string }[]): boolean {
  const key = (files: readonly { filename: string; sha256: string }[]) =>
    files
      .map((f) => `${f.filename}\0${f.sha256}`)
      .sort()
      .join('\n');
  return key(a) === key(b);
}
