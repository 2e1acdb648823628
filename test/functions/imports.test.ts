import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGitHub, fakeGitHubEnv, type GitHubUser, startFakeGitHub } from '#scripts/local/fake-github';
import { OBSERVED_WITHIN_MS, untilObserved } from '../support/behaviour.ts';
import { GitRepo } from '../support/git-repo.ts';
import { Client, createTestStack, json, ORIGIN, skillBody, type TestStack, withKey } from '../support/stack.ts';

let github: FakeGitHub;
let stack: TestStack;
const repos: GitRepo[] = [];

beforeAll(async () => {
  github = await startFakeGitHub();
  stack = await createTestStack({}, { ...fakeGitHubEnv(github), SKILLPRESS_PUBLISH_LIMIT: '200' });
});
afterAll(async () => {
  await github.close();
  for (const repo of repos) repo.remove();
});

let nextId = 7000;
/** A GitHub account, signed in to Skillpress through the OAuth flow against the fake. */
async function gitHubUser(): Promise<{ user: GitHubUser; client: Client }> {
  const user: GitHubUser = { id: nextId++, login: `dev-${randomBytes(3).toString('hex')}` };
  return { user, client: await Client.signInWithGitHub(stack, () => github.issueCode(user)) };
}

/** A repository of `owner`, served by the fake GitHub. */
function repoOf(owner: { login: string; id: number }, type: 'User' | 'Organization' = 'User'): { repo: GitRepo; name: string } {
  const repo = new GitRepo();
  repos.push(repo);
  const name = `${owner.login}/skills-${randomBytes(3).toString('hex')}`;
  github.addRepo(name, repo.dir, { login: owner.login, id: owner.id, type });
  return { repo, name };
}

const suffix = () => randomBytes(3).toString('hex');
const skillMd = (name: string, description: string, extra = '') => `---\nname: ${name}\ndescription: ${description}\n${extra}---\n# ${name}\n\nSteps.\n`;

/** A push event's body and its signature under `secret`, as GitHub sends them. */
function delivery(secret: string, ref = 'refs/heads/main'): { body: string; signature: string } {
  const body = JSON.stringify({ ref, after: 'f'.repeat(40), repository: { full_name: 'x/y' } });
  return { body, signature: `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` };
}

function webhook(id: string, body: string, signature: string | undefined, event = 'push'): Promise<Response> {
  return stack.request(`/api/imports/${id}/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': event, ...(signature ? { 'x-hub-signature-256': signature } : {}) },
    body,
  });
}

async function versionsOf(client: Client, slug: string): Promise<{ version: string; source?: { repo: string; commit: string; path: string } }[]> {
  const res = await client.session(`/api/me/registry/${slug}/versions`);
  expect(res.status).toBe(200);
  return (await json(res)).versions;
}

describe('POST /api/imports', () => {
  it(
    'publishes every skill folder of a repository in one step, following links inside a folder and recording where each was read',
    async () => {
      const { user, client } = await gitHubUser();
      const { repo, name } = repoOf(user);
      const [pdf, notes, linked] = [`pdf-${suffix()}`, `notes-${suffix()}`, `linked-${suffix()}`];
      const commit = repo.commit(
        {
          'README.md': '# Skills\n',
          [`skills/${pdf}/SKILL.md`]: skillMd(pdf, 'Reads PDF files.'),
          [`skills/${pdf}/scripts/extract.py`]: 'print("text")\n',
          [`skills/group/${notes}/SKILL.md`]: `---\nname: ${notes}\ndescription: >\n  Takes notes in meetings,\n  folded over two lines.\n---\n# Notes\n`,
          [`skills/${linked}/SKILL.md`]: skillMd(linked, 'Uses a shared reference.'),
          [`skills/${linked}/shared/reference.md`]: '# Reference\n',
          '.github/skills/hidden/SKILL.md': skillMd('hidden', 'Never imported.'),
          'node_modules/dep/SKILL.md': skillMd('dep', 'Never imported.'),
        },
        { [`skills/${linked}/REFERENCE.md`]: 'shared/reference.md' },
      );

      const res = await client.session('/api/imports', { method: 'POST', body: { repo: name } });
      expect(res.status).toBe(201);
      const body = await json(res);
      expect(body).toMatchObject({ repo: name, ref: 'main', path: '', commit, webhookUrl: `${ORIGIN}/api/imports/${body.id}/webhook` });
      expect(body.webhookSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // In path order.
      expect(body.folders).toEqual([
        { path: `skills/group/${notes}`, slug: notes, outcome: 'published', version: '1.0.0' },
        { path: `skills/${linked}`, slug: linked, outcome: 'published', version: '1.0.0' },
        { path: `skills/${pdf}`, slug: pdf, outcome: 'published', version: '1.0.0' },
      ]);

      const [version] = await versionsOf(client, notes);
      expect(version).toMatchObject({ version: '1.0.0', source: { repo: name, commit, path: `skills/group/${notes}` } });
      const registry = await json(await client.session(`/api/me/registry/${notes}`));
      expect(registry.description).toBe('Takes notes in meetings, folded over two lines.');
      const linkedDoc = await json(await client.session(`/api/me/registry/${linked}`));
      expect(linkedDoc.files.map((f: { filename: string }) => f.filename).sort()).toEqual(['REFERENCE.md', 'SKILL.md', 'shared/reference.md']);
      expect(linkedDoc.files.find((f: { filename: string }) => f.filename === 'REFERENCE.md').size).toBe('# Reference\n'.length);
      // Its script runs in the sandbox before its document lists the version.
      const { id: pdfId } = await json(await client.session(`/api/me/registry/${pdf}`));
      await untilObserved(stack, await client.createKey(), pdfId);
      const pdfDoc = await json(await client.session(`/api/me/registry/${pdf}`));
      expect(pdfDoc.files.map((f: { filename: string }) => f.filename).sort()).toEqual(['SKILL.md', 'scripts/extract.py']);
    },
    OBSERVED_WITHIN_MS,
  );

  it('refuses a folder with a link pointing outside it, by name, and publishes the others', async () => {
    const { user, client } = await gitHubUser();
    const { repo, name } = repoOf(user);
    const [leaky, fine] = [`leaky-${suffix()}`, `fine-${suffix()}`];
    repo.commit(
      { [`${leaky}/SKILL.md`]: skillMd(leaky, 'Leaks.'), [`${fine}/SKILL.md`]: skillMd(fine, 'Fine.'), 'secrets.txt': 'nope\n' },
      { [`${leaky}/notes.txt`]: '../secrets.txt' },
    );
    const body = await json(await client.session('/api/imports', { method: 'POST', body: { repo: name } }));
    expect(body.folders).toEqual([
      { path: fine, slug: fine, outcome: 'published', version: '1.0.0' },
      { path: leaky, outcome: 'refused', error: { code: 'invalid_skill', message: expect.stringContaining('notes.txt') } },
    ]);
    expect((await client.session(`/api/me/registry/${leaky}`)).status).toBe(404);
  });

  it("refuses someone else's public repository with 403 not_repo_owner, and keeps no import", async () => {
    const owner = await gitHubUser();
    const { repo, name } = repoOf(owner.user);
    const slug = `theirs-${suffix()}`;
    repo.commit({ [`${slug}/SKILL.md`]: skillMd(slug, 'Theirs.') });
    const { client } = await gitHubUser();

    const res = await client.session('/api/imports', { method: 'POST', body: { repo: name } });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe('not_repo_owner');
    expect((await json(await client.session('/api/imports'))).imports).toEqual([]);
    expect((await client.session(`/api/me/registry/${slug}`)).status).toBe(404);
  });

  it("imports an organisation's repository for a member of it, and refuses a dev sign-in", async () => {
    const { user, client } = await gitHubUser();
    const org = { login: `org-${suffix()}`, id: nextId++ };
    github.addOrgMember(org.login, user);
    const { repo, name } = repoOf(org, 'Organization');
    const slug = `team-${suffix()}`;
    repo.commit({ [`${slug}/SKILL.md`]: skillMd(slug, 'A team skill.') });

    const res = await client.session('/api/imports', { method: 'POST', body: { repo: name } });
    expect(res.status).toBe(201);
    expect((await json(res)).folders).toEqual([{ path: slug, slug, outcome: 'published', version: '1.0.0' }]);

    const dev = await Client.signIn(stack, `dev-${suffix()}`);
    const refused = await dev.session('/api/imports', { method: 'POST', body: { repo: name } });
    expect(refused.status).toBe(403);
    expect((await json(refused)).error.code).toBe('not_repo_owner');
  });

  it('publishes every conforming skill of a repository laid out as the public skills collections are', async () => {
    const { user, client } = await gitHubUser();
    const { repo, name } = repoOf(user);
    const s = suffix();
    const slugs = [`pdf-${s}`, `docx-${s}`, `art-${s}`, `template-skill-${s}`];
    repo.commit({
      '.claude-plugin/marketplace.json': '{"name":"example-skills","plugins":[]}\n',
      '.gitignore': '.DS_Store\n',
      'README.md': '# Skills\n',
      'spec/agent-skills-spec.md': '# Spec\n',
      [`skills/${slugs[0]}/SKILL.md`]: skillMd(
        slugs[0]!,
        'Use this skill whenever the user wants to do anything with PDF files.',
        'license: Proprietary. LICENSE.txt has complete terms\n',
      ),
      [`skills/${slugs[0]}/LICENSE.txt`]: 'Terms.\n',
      [`skills/${slugs[0]}/forms.md`]: '# Forms\n',
      [`skills/${slugs[0]}/scripts/check_fields.py`]: 'import sys\nprint(sys.argv)\n',
      [`skills/${slugs[1]}/SKILL.md`]: skillMd(slugs[1]!, '"Creates and edits Word documents: tracked changes, comments, formatting."'),
      [`skills/${slugs[1]}/ooxml/scripts/pack.py`]: 'print("pack")\n',
      [`skills/${slugs[2]}/SKILL.md`]: skillMd(slugs[2]!, 'Creates algorithmic art with p5.js.'),
      [`skills/${slugs[2]}/templates/viewer.html`]: '<!doctype html><title>viewer</title>\n',
      'template/SKILL.md': skillMd(slugs[3]!, 'Replace with description of the skill and when Claude should use it.'),
      [`skills/broken-${s}/SKILL.md`]: '---\nname: Broken Name\n---\n# no description\n',
    });
    const res = await client.session('/api/imports', { method: 'POST', body: { repo: name } });
    expect(res.status).toBe(201);
    const { folders } = await json(res);
    expect(
      folders
        .filter((f: { outcome: string }) => f.outcome === 'published')
        .map((f: { slug: string }) => f.slug)
        .sort(),
    ).toEqual([...slugs].sort());
    expect(folders.find((f: { path: string }) => f.path === `skills/broken-${s}`)).toMatchObject({ outcome: 'refused', error: { code: 'invalid_skill' } });
  });

  it('publishes new skills into a Skillpress organisation the caller runs, and refuses one they do not belong to', async () => {
    const { user, client } = await gitHubUser();
    const { repo, name } = repoOf(user);
    const slug = `org-skill-${suffix()}`;
    repo.commit({ [`${slug}/SKILL.md`]: skillMd(slug, 'For the team.') });
    const org = `Team-${suffix()}`;
    expect((await client.session('/api/orgs', { method: 'POST', body: { login: org, name: 'Team' } })).status).toBe(201);

    const stranger = await gitHubUser();
    const refused = await stranger.client.session('/api/imports', { method: 'POST', body: { repo: name, org } });
    expect(refused.status).toBe(403);
    expect((await json(refused)).error.code).toBe('forbidden');

    const res = await client.session('/api/imports', { method: 'POST', body: { repo: name, org: org.toLowerCase() } });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({ org, folders: [{ slug, outcome: 'published' }] });
    expect((await json(await client.session(`/api/me/registry/${slug}`))).owner).toEqual({ type: 'org', login: org });
  });

  it('imports only the folder path names, and answers 404 for a ref the repository does not have', async () => {
    const { user, client } = await gitHubUser();
    const { repo, name } = repoOf(user);
    const [inside, outside] = [`inside-${suffix()}`, `outside-${suffix()}`];
    repo.commit({ [`skills/${inside}/SKILL.md`]: skillMd(inside, 'Inside.'), [`other/${outside}/SKILL.md`]: skillMd(outside, 'Outside.') });
    const body = await json(await client.session('/api/imports', { method: 'POST', body: { repo: name, path: 'skills' } }));
    expect(body.folders).toEqual([{ path: `skills/${inside}`, slug: inside, outcome: 'published', version: '1.0.0' }]);

    const missing = await client.session('/api/imports', { method: 'POST', body: { repo: name, ref: 'no-such-branch' } });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('not_found');
  });
});

describe('an import and the rate limits (the defaults: 5 new skills, 20 versions a minute)', () => {
  it('imports more new skills than a minute allows in one step, as one request against the limit; a full window refuses its new skills, not its versions', async () => {
    const limited = await createTestStack({}, fakeGitHubEnv(github));
    const user: GitHubUser = { id: nextId++, login: `busy-${suffix()}` };
    const client = await Client.signInWithGitHub(limited, () => github.issueCode(user));
    const { repo, name } = repoOf(user);
    const slugs = Array.from({ length: 7 }, (_, i) => `many-${i}-${suffix()}`);
    repo.commit(Object.fromEntries(slugs.map((slug) => [`${slug}/SKILL.md`, skillMd(slug, `Skill ${slug}.`)])));

    const first = await client.session('/api/imports', { method: 'POST', body: { repo: name } });
    expect(first.status).toBe(201);
    const { id, webhookSecret, folders } = await json(first);
    expect(folders.map((f: { outcome: string }) => f.outcome)).toEqual(Array(7).fill('published'));
    // The import took one slot of five: a publish now leaves three.
    const key = await client.createKey();
    const publish = () => withKey(limited, key, '/api/publish', { body: skillBody() });
    const published = await publish();
    expect(published.status).toBe(201);
    expect(published.headers.get('ratelimit-remaining')).toBe('3');
    for (let i = 0; i < 3; i++) expect((await publish()).status).toBe(201);

    // The window is full: a push that adds two skills and changes one publishes the version only.
    const [late, later] = [`late-${suffix()}`, `later-${suffix()}`];
    repo.commit({
      [`${late}/SKILL.md`]: skillMd(late, 'Late.'),
      [`${later}/SKILL.md`]: skillMd(later, 'Later.'),
      [`${slugs[0]}/SKILL.md`]: skillMd(slugs[0]!, 'Changed.'),
    });
    const { body, signature } = delivery(webhookSecret);
    const res = await limited.request(`/api/imports/${id}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': signature },
      body,
    });
    expect(res.status).toBe(202);
    const outcomes = new Map(
      (await json(res)).folders.map((f: { slug: string; outcome: string; error?: { code: string } }) => [f.slug, f.error?.code ?? f.outcome]),
    );
    expect(outcomes.get(slugs[0])).toBe('versioned');
    expect(outcomes.get(late)).toBe('rate_limited');
    expect(outcomes.get(later)).toBe('rate_limited');
  });
});

describe('sync: the webhook and sync now', () => {
  async function imported() {
    const { user, client } = await gitHubUser();
    const { repo, name } = repoOf(user);
    const [a, b, c] = [`alpha-${suffix()}`, `beta-${suffix()}`, `gamma-${suffix()}`];
    repo.commit({ [`${a}/SKILL.md`]: skillMd(a, 'Alpha.'), [`${b}/SKILL.md`]: skillMd(b, 'Beta.'), [`${c}/SKILL.md`]: skillMd(c, 'Gamma.') });
    const created = await json(await client.session('/api/imports', { method: 'POST', body: { repo: name } }));
    return { client, repo, name, a, b, c, id: created.id as string, secret: created.webhookSecret as string };
  }

  it('re-imports on a signed push to the tracked branch: only the changed folder gets a new version', async () => {
    const { client, repo, name, a, b, c, id, secret } = await imported();
    const commit = repo.commit({ [`${b}/SKILL.md`]: skillMd(b, 'Beta, better.') });
    const { body, signature } = delivery(secret);

    const res = await webhook(id, body, signature);
    expect(res.status).toBe(202);
    const result = await json(res);
    expect(result.commit).toBe(commit);
    expect(result.folders).toEqual([
      { path: a, slug: a, outcome: 'unchanged', version: '1.0.0' },
      { path: b, slug: b, outcome: 'versioned', version: '1.0.1' },
      { path: c, slug: c, outcome: 'unchanged', version: '1.0.0' },
    ]);
    expect((await versionsOf(client, b)).map((v) => [v.version, v.source?.commit])).toEqual([
      ['1.0.1', commit],
      ['1.0.0', expect.any(String)],
    ]);
    expect((await versionsOf(client, a)).map((v) => v.version)).toEqual(['1.0.0']);
    const listed = (await json(await client.session('/api/imports'))).imports;
    expect(listed).toEqual([expect.objectContaining({ id, repo: name, lastSync: { at: expect.any(String), commit } })]);
    expect(JSON.stringify(listed)).not.toContain(secret);
  });

  it('publishes the version metadata.version declares, and sync now does what a push does', async () => {
    const { client, repo, c, id } = await imported();
    repo.commit({ [`${c}/SKILL.md`]: skillMd(c, 'Gamma two.', 'metadata:\n  version: 2.0.0\n') });
    const res = await client.session(`/api/imports/${id}/sync`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect((await json(res)).folders.find((f: { slug: string }) => f.slug === c)).toEqual({ path: c, slug: c, outcome: 'versioned', version: '2.0.0' });
  });

  it('refuses a wrong or missing signature with 401 and changes nothing', async () => {
    const { client, repo, b, id } = await imported();
    repo.commit({ [`${b}/SKILL.md`]: skillMd(b, 'Beta, forged.') });
    const before = await json(await client.session('/api/imports'));
    const { body } = delivery('not-the-secret');
    const forged = delivery('not-the-secret');

    for (const signature of [forged.signature, undefined, 'sha256=zz', `sha1=${'0'.repeat(40)}`]) {
      const res = await webhook(id, body, signature);
      expect(res.status).toBe(401);
      expect((await json(res)).error.code).toBe('unauthenticated');
    }
    expect((await versionsOf(client, b)).map((v) => v.version)).toEqual(['1.0.0']);
    expect(await json(await client.session('/api/imports'))).toEqual(before);
  });

  it('acknowledges a ping, another event and a push to another branch with 204, importing nothing', async () => {
    const { client, repo, b, id, secret } = await imported();
    repo.commit({ [`${b}/SKILL.md`]: skillMd(b, 'Beta, elsewhere.') });
    const other = delivery(secret, 'refs/heads/feature');
    expect((await webhook(id, other.body, other.signature)).status).toBe(204);
    const ping = delivery(secret);
    expect((await webhook(id, ping.body, ping.signature, 'ping')).status).toBe(204);
    expect((await versionsOf(client, b)).map((v) => v.version)).toEqual(['1.0.0']);
  });

  it("answers 404 for someone else's import on sync now, and imports again the same repository as the import made before (200, no secret)", async () => {
    const { client, name, id } = await imported();
    const stranger = await gitHubUser();
    expect((await stranger.client.session(`/api/imports/${id}/sync`, { method: 'POST' })).status).toBe(404);

    const again = await client.session('/api/imports', { method: 'POST', body: { repo: name } });
    expect(again.status).toBe(200);
    const body = await json(again);
    expect(body.id).toBe(id);
    expect(body.webhookSecret).toBeUndefined();
    expect(body.folders.every((f: { outcome: string }) => f.outcome === 'unchanged')).toBe(true);
  });
});
