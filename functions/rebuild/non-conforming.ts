import type { NonConformingSkill } from './rebuilder.ts';

/** One line for a person: the skill, its current version, and each problem of its files. */
export function describeNonConforming({ slug, version, issues }: NonConformingSkill): string {
  const problems = issues.map((issue) => `${issue.file}${issue.path ? ` (${issue.path.join('.')})` : ''}: ${issue.message}`);
  return `${slug}@${version}: ${problems.join('; ')}`;
}

/** What a full rebuild run by hand prints about them: a heading, then one indented line each; nothing when there are none. */
export function nonConformingReport(skills: readonly NonConformingSkill[]): string[] {
  if (skills.length === 0) return [];
  return [
    `Left out of the discovery index, as their current version is not a valid Agent Skill (${skills.length}; publish a fixed version):`,
    ...skills.map((skill) => `  ${describeNonConforming(skill)}`),
  ];
}
