/**
 * The name rule of the Agent Skills specification, which a skill's slug must also follow because
 * a `SKILL.md` names its skill by slug: lower-case ASCII letters and digits in runs joined by
 * single hyphens, 1 to 64 characters (no leading, trailing or doubled hyphen).
 */

export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const SKILL_NAME_MAX = 64;

export function isSkillName(name: string): boolean {
  return name.length <= SKILL_NAME_MAX && SKILL_NAME_PATTERN.test(name);
}
