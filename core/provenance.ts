/**
 * Where a version came from (docs/api.md §7.14): recorded when a CI workflow publishes it with a
 * publish token, from the claims of the OIDC token that token was exchanged for, and never from
 * anything the request sends. Its schema is core/provenance-schema.ts (kept apart, so the CLI's
 * readers of it carry no zod).
 */
export interface Provenance {
  provider: 'github';
  /** `owner/repo`, as the token named it. */
  repository: string;
  /** The workflow file's path in the repository, `.github/workflows/publish.yml`. */
  workflow: string;
  /** The token's `job_workflow_ref`: `owner/repo/.github/workflows/publish.yml@refs/heads/main`. */
  workflowRef: string;
  /** The git ref the run built, `refs/heads/main` or `refs/tags/v1.2.0`. */
  ref: string;
  /** The commit the run built. */
  sha: string;
  runId: string;
  runAttempt: string;
  /** The deployment environment the job ran in, when it named one. */
  environment?: string;
  /** The OIDC issuer that vouched for all of the above. */
  issuer: string;
}

/** The run's page, where a reader sees the logs of the build that published a version. */
export function runUrl(provenance: Pick<Provenance, 'repository' | 'runId' | 'runAttempt'>): string {
  return `https://github.com/${provenance.repository}/actions/runs/${encodeURIComponent(provenance.runId)}/attempts/${encodeURIComponent(provenance.runAttempt)}`;
}

/** "built from owner/repo@abc1234 by .github/workflows/publish.yml": the line the site and the CLI show. */
export function provenanceLine(provenance: Pick<Provenance, 'repository' | 'sha' | 'workflow'>): string {
  return `built from ${provenance.repository}@${provenance.sha.slice(0, 7)} by ${provenance.workflow}`;
}
