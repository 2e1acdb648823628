import type { FileBytes } from '#core/bundle';
import type { Effects } from '#core/effects/effect';
import { isDomainError } from '#core/errors';
import { SKILL_FILE } from '#core/filename';
import { publishBodySchema, versionBodySchema } from '#core/schemas';
import { unquotedEffects } from '#core/effects/unquoted';
import type { SkillCheck, SkillCheckBody } from '#core/skill-check';
import type { SkillConformance } from '#core/skill-conformance';
import { validate } from '#core/validate';
import { allow, allowSkill, type Principal } from './authorization.ts';
import { checkSkill, checkVersion, FIRST_VERSION, type Published, prepareFiles } from './publishing.ts';
import { rateWindow } from './rate-windows.ts';
import { scannerOf } from './scanning.ts';
import type { Deps } from '../platform/composition.ts';
import { takeSlot } from '../store/rate-limit.ts';
import { findSkillIdBySlug, getSkill } from '../store/skills.ts';

/**
 * A folder's files judged as publishing them would judge them, storing nothing (docs/api.md
 * §7.4, `POST /api/skills/check`): the web upload's preview. Whatever would refuse the request
 * itself (who may publish where, a slug that is someone else's or imitates a popular one, a
 * quarantine, dependencies) is refused the same way; what is wrong with the files (conformance,
 * with each problem's line, and the scan, malicious or not) is the answer, so the author sees all
 * of it at once. It spends no publish slot: checks have their own window.
 */
export async function checkFiles(deps: Deps, principal: Principal, body: SkillCheckBody): Promise<Published<SkillCheck>> {
  const files = prepareFiles(body.files);
  const { checkSkillConformance, placedIssues } = await import('#core/skill-conformance');
  const conformance = checkSkillConformance(files);
  const listing = await listingOf(files, conformance);
  const target = listing.slug && listing.description ? await checkTarget(deps, principal, body, files, conformance, listing) : undefined;
  // Files that name no skill yet are still checked only for someone who may publish one.
  if (!target) await allow(deps, principal, 'account.create_skill', { kind: 'account', userId: principal.user.id });

  const rate = await takeSlot(deps.db, principal.user.id, deps.clock(), rateWindow(deps.config, 'check'));
  // The author's own files, but scanned as their publish would be: a paid skill's findings quote nothing.
  const paid = target?.kind === 'version' ? target.paid : body.paid;
  const scan = await scannerOf(deps)(files, { quote: !paid });
  return {
    result: {
      ...(target ? { target } : {}),
      listing,
      issues: placedIssues(files, conformance.issues),
      warnings: conformance.warnings,
      scan,
      effects: paid ? unquotedEffects(await textEffects(files)) : await textEffects(files),
    },
    rate,
  };
}

type Listing = SkillCheck['listing'];

/**
 * What the `SKILL.md` lists the skill with, as `skillpress publish` reads a folder: the slug is
 * its `name`, the display name its first heading (else the slug), the description on one line.
 */
async function listingOf(files: FileBytes[], conformance: SkillConformance): Promise<Listing> {
  const { frontMatter } = conformance;
  if (!frontMatter) return { dependencies: {} };
  const [{ listingOf: listed }, { headingName, readFrontMatter }, { readSkillpressKeys }] = await Promise.all([
    import('#core/skill-listing'),
    import('#core/skill-front-matter'),
    import('#core/skillpress-metadata'),
  ]);
  const { isValidSlug } = await import('#core/slug');
  const slug = typeof frontMatter.name === 'string' && isValidSlug(frontMatter.name) ? frontMatter.name : undefined;
  const source = new TextDecoder().decode(files.find((file) => file.filename === SKILL_FILE)!.bytes);
  const name = headingName(readFrontMatter(source).body) ?? slug;
  return {
    ...(slug ? { slug } : {}),
    ...(name ? { name } : {}),
    ...listed(frontMatter),
    dependencies: readSkillpressKeys(frontMatter).dependencies,
  };
}

/**
 * What publishing the files would make, through every check of that publish but the files'
 * own: a new version when the slug is a skill the caller may publish versions of, else a new
 * skill (where a slug that is someone else's is `409 slug_taken`, as its publish would be).
 */
async function checkTarget(
  deps: Deps,
  principal: Principal,
  body: SkillCheckBody,
  files: FileBytes[],
  conformance: SkillConformance,
  listing: Listing,
): Promise<SkillCheck['target']> {
  const slug = listing.slug!;
  const wire = body.files;
  const skillId = await findSkillIdBySlug(deps.db, slug);
  const own = skillId ? await versionable(deps, principal, skillId) : false;
  if (skillId && own) {
    const skill = (await getSkill(deps.db, skillId))!;
    const { suggestedVersion } = await import('#core/repo-import');
    const version = suggestedVersion(skill.currentVersion, conformance.frontMatter?.metadata);
    await filesApart(checkVersion(deps, principal, skillId, validate(versionBodySchema, { version, files: wire, dependencies: listing.dependencies }), files));
    return { kind: 'version', skillId, currentVersion: skill.currentVersion, suggestedVersion: version, paid: skill.paid };
  }
  const publish = validate(publishBodySchema, {
    name: listing.name,
    description: listing.description,
    ...(listing.category ? { category: listing.category } : {}),
    slug,
    paid: body.paid,
    files: wire,
    dependencies: listing.dependencies,
    ...(body.owner === undefined ? {} : { owner: body.owner }),
  });
  await filesApart(checkSkill(deps, principal, publish, FIRST_VERSION, files));
  return { kind: 'skill' };
}

/** Whether the caller may publish versions of the skill `skillId` (a skill of someone else's is not one to version). */
async function versionable(deps: Deps, principal: Principal, skillId: string): Promise<boolean> {
  try {
    await allowSkill(deps, principal, await getSkill(deps.db, skillId), skillId, 'skill.publish_version');
    return true;
  } catch (error) {
    if (isDomainError(error)) return false;
    throw error;
  }
}

/**
 * Runs a publish's checks, which end with the files' conformance: a refusal of the files is the
 * check's answer (its issues), not its error, so only the request's own refusals are thrown.
 */
async function filesApart(checks: Promise<unknown>): Promise<void> {
  try {
    await checks;
  } catch (error) {
    if (!(isDomainError(error) && error.code === 'invalid_skill')) throw error;
  }
}

/**
 * The effects the files' text says they have when run, read as the registry reads a version's
 * (core/effects/static-effects.ts); loaded on first use, as the scanner is.
 */
async function textEffects(files: readonly FileBytes[]): Promise<Effects> {
  return (await import('#core/effects/static-effects')).staticEffects(files);
}
