import type { Octokit } from '@octokit/core';
import * as z from 'zod/mini';
import { DomainError, notFound, payloadTooLarge } from '#core/errors';
import type { TreeEntry } from '#core/repo-import';
import type { User } from '#core/schemas';
import type { GitHubConfig } from '../platform/config.ts';
import { readSecret } from '../platform/secrets-manager.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * What a GitHub import reads from GitHub's REST API (docs/api.md §7.16), with the server's import
 * token (or anonymously): a repository and who owns it, a ref's commit, the commit's tree and
 * its blobs, and whether a user belongs to an organisation. GitHub's failures become domain
 * errors here: a repository or ref GitHub does not show is 404 `not_found`, anything else
 * 502 `github_unavailable`; octokit's own errors, which hold the request, go no further.
 */

export interface Repository {
  /** `owner/name` as GitHub spells it. */
  fullName: string;
  owner: { login: string; id: number; type: string };
  defaultBranch: string;
}

const repositorySchema = lazySchema(() =>
  z.object({
    full_name: z.string(),
    owner: z.object({ login: z.string(), id: z.number(), type: z.string() }),
    default_branch: z.string(),
  }),
);
const commitSchema = lazySchema(() => z.object({ sha: z.string().check(z.regex(/^[0-9a-f]{40}$/)) }));
const treeSchema = lazySchema(() =>
  z.object({
    truncated: z.optional(z.boolean()),
    tree: z.array(z.object({ path: z.string(), mode: z.string(), type: z.enum(['blob', 'tree', 'commit']), sha: z.string(), size: z.optional(z.number()) })),
  }),
);
const blobSchema = lazySchema(() => z.object({ content: z.string(), encoding: z.literal('base64') }));
const accountSchema = lazySchema(() => z.object({ login: z.string() }));

/** GitHub's REST API as imports use it. */
export class GitHubRepos {
  private constructor(
    private readonly api: Octokit,
    private readonly statusOf: (error: unknown) => number,
  ) {}

  /**
   * Octokit is loaded here, on the first import that reads GitHub: a webhook refused for its
   * signature, or a list of imports, never needs it, and the Lambda's cold start does not pay for it.
   */
  static async open(config: GitHubConfig, region: string): Promise<GitHubRepos> {
    const [{ githubApi, statusOfGitHubError }, token] = await Promise.all([import('../platform/octokit.ts'), readSecret(config.importToken, region)]);
    return new GitHubRepos(githubApi(config, token), statusOfGitHubError);
  }

  async repository(repo: string): Promise<Repository> {
    const [owner, name] = repo.split('/') as [string, string];
    const data = await this.get(repositorySchema, 'GET /repos/{owner}/{repo}', { owner, repo: name }, `No GitHub repository ${repo} that Skillpress can read`);
    return { fullName: data.full_name, owner: data.owner, defaultBranch: data.default_branch };
  }

  /** The commit `ref` (a branch, a tag, `refs/heads/…`) names now. */
  async commitOf(repo: string, ref: string): Promise<string> {
    const [owner, name] = repo.split('/') as [string, string];
    const data = await this.get(commitSchema, 'GET /repos/{owner}/{repo}/commits/{ref}', { owner, repo: name, ref }, `${repo} has no branch or tag ${ref}`);
    return data.sha;
  }

  /** Every entry of the commit's tree; a tree GitHub cannot list whole is refused (413). */
  async tree(repo: string, commit: string): Promise<TreeEntry[]> {
    const [owner, name] = repo.split('/') as [string, string];
    const data = await this.get(
      treeSchema,
      'GET /repos/{owner}/{repo}/git/trees/{tree_sha}',
      { owner, repo: name, tree_sha: commit, recursive: '1' },
      `${repo} has no commit ${commit}`,
    );
    if (data.truncated) throw payloadTooLarge(`${repo} has more files than GitHub lists in one tree; import a folder of it with path`);
    return data.tree;
  }

  async blob(repo: string, sha: string): Promise<Uint8Array> {
    const [owner, name] = repo.split('/') as [string, string];
    const data = await this.get(
      blobSchema,
      'GET /repos/{owner}/{repo}/git/blobs/{file_sha}',
      { owner, repo: name, file_sha: sha },
      `${repo} has no blob ${sha}`,
    );
    return Buffer.from(data.content, 'base64');
  }

  /**
   * Whether `user` (a GitHub account, `gh:<id>`) is the repository's owner, or a member of the
   * organisation that owns it. Accounts are compared by GitHub's numeric id, which a rename
   * keeps; an organisation's members are asked about by the login GitHub gives that id now.
   */
  async ownsRepository(user: Pick<User, 'id'>, repository: Repository): Promise<boolean> {
    const githubId = /^gh:(\d+)$/.exec(user.id)?.[1];
    if (githubId === undefined) return false;
    if (repository.owner.type !== 'Organization') return String(repository.owner.id) === githubId;
    const account = await this.get(accountSchema, 'GET /user/{account_id}', { account_id: githubId }, 'Your GitHub account no longer exists');
    try {
      // 204 a member; anonymously GitHub redirects to the public membership, which octokit follows.
      const { status }: { status: number } = await this.api.request('GET /orgs/{org}/members/{username}', {
        org: repository.owner.login,
        username: account.login,
      });
      return status === 204;
    } catch (error) {
      const status = this.statusOf(error);
      if (status === 404 || status === 302) return false;
      throw unavailable(status);
    }
  }

  private async get<S extends z.ZodMiniType>(schema: S, route: string, params: Record<string, string>, missing: string): Promise<z.output<S>> {
    let data: unknown;
    try {
      ({ data } = await this.api.request(route, params));
    } catch (error) {
      const status = this.statusOf(error);
      // GitHub answers a private repository the token cannot see as it answers a missing one.
      if (status === 404 || status === 422) throw notFound(missing);
      throw unavailable(status);
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) throw unavailable(0);
    return parsed.data;
  }
}

function unavailable(status: number): DomainError {
  const why =
    status === 403 || status === 429 ? 'refused the request (its rate limit, or the token)' : status ? `answered ${status}` : 'answered something unexpected';
  return new DomainError('github_unavailable', `GitHub ${why}; try again later`);
}
