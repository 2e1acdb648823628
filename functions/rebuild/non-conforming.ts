import type { NonConformingSkill } from './rebuilder.ts';

/** One line for a person: the skill, its current version, and each problem of its files. */
export function describeNonConforming({ slug, version, issues }: NonConformingSkill): string {
  const problems = issues.map((issue) => `${issue.file}${issue.path ? ` (${issue.path.join('.')})` : ''}: ${issue.message}`);
  return `${slug}@${version}: ${problems.join('; ')}`;
}
