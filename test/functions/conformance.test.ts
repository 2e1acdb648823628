import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleIntegrity, decodeFile } from '#core/bundle';
import { getVersion, listVersions } from '#functions/store/skills';
import { OBSERVED_WITHIN_MS, untilObserved } from '../support/behaviour.ts';
import { rewriteAsLegacy } from '../support/legacy-version.ts';
import { Client, createTestStack, json, skillBody, skillFile, skillMd, type TestStack, withKey } from '../support/stack.ts';

/**
 * docs/agent-skills.md through the API: every version published is a valid Agent Skill, every
 * problem is listed, unknown keys come back as warnings, a publish without files gets a
 * conforming SKILL.md, the discovery index lists the SKILL.md description, executable files stay
 * executable, and versions published before the check are left out of the index by the rebuild.
 */

let stack: TestStack;
let aliceKey: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  aliceKey = await (await Client.signIn(stack, 'alice')).createKey();
});

let counter = 0;
/** A fresh slug, so each case is its own skill. */
const fresh = (what: string) => `${what}-${++counter}`;

const publishWith = (slug: string, files: unknown[], extra: Record<string, unknown> = {}) =>
  withKey(stack, aliceKey, '/api/publish', { body: skillBody({ slug, files, ...extra }) });

interface Issue {
  file: string;
  path?: (string | number)[];
  message: string;
}

async function invalidSkill(res: Response): Promise<Issue[]> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(body.error.code).toBe('invalid_skill');
  return body.error.details.issues;
}

/** Whether the content bucket holds `content`: a refused publish must store none of its files. */
async function storedContent(content: string): Promise<boolean> {
  const sha = createHash('sha256').update(content).digest('hex');
  try {
    await stack.deps.s3.send(new HeadObjectCommand({ Bucket: stack.config.contentBucket, Key: `blobs/${sha.slice(0, 2)}/${sha}` }));
    return true;
  } catch {
    return false;
  }
}

describe('the rules of docs/agent-skills.md, at publish', () => {
  // One case per rule: what a real author gets wrong, and where the issue points.
  const cases: [string, (slug: string) => { filename: string; content: string }[], Partial<Issue>][] = [
    ['no SKILL.md at all', () => [{ filename: 'README.md', content: '# Readme' }], { file: 'SKILL.md' }],
    ['a lower-case skill.md', (slug) => [{ filename: 'skill.md', content: skillMd(slug) }], { file: 'skill.md' }],
    ['SKILL.md only in a folder', (slug) => [{ filename: 'docs/SKILL.md', content: skillMd(slug) }], { file: 'docs/SKILL.md' }],
    ['no front matter', () => [{ filename: 'SKILL.md', content: '# Just a heading\n' }], { file: 'SKILL.md' }],
    ['front matter never closed', (slug) => [{ filename: 'SKILL.md', content: `---\nname: ${slug}\ndescription: x\n` }], { file: 'SKILL.md' }],
    ['invalid YAML', () => [{ filename: 'SKILL.md', content: '---\nname: [unclosed\n---\n' }], { file: 'SKILL.md' }],
    ['front matter that is a list', () => [{ filename: 'SKILL.md', content: '---\n- a\n- b\n---\n' }], { file: 'SKILL.md' }],
    ['a name that is not the slug', () => [{ filename: 'SKILL.md', content: skillMd('another-skill') }], { path: ['name'] }],
    ['an upper-case name', () => [{ filename: 'SKILL.md', content: skillMd('PDF-Tools') }], { path: ['name'] }],
    ['no description', (slug) => [{ filename: 'SKILL.md', content: `---\nname: ${slug}\n---\n` }], { path: ['description'] }],
    ['a description of 1025 characters', (slug) => [skillFile(slug, '', 'x'.repeat(1025))], { path: ['description'] }],
    [
      'a license that is a number',
      (slug) => [{ filename: 'SKILL.md', content: `---\nname: ${slug}\ndescription: d\nlicense: 2024\n---\n` }],
      { path: ['license'] },
    ],
    [
      'compatibility of 501 characters',
      (slug) => [{ filename: 'SKILL.md', content: `---\nname: ${slug}\ndescription: d\ncompatibility: ${'c'.repeat(501)}\n---\n` }],
      { path: ['compatibility'] },
    ],
    [
      'a metadata value that is a number',
      (slug) => [{ filename: 'SKILL.md', content: `---\nname: ${slug}\ndescription: d\nmetadata:\n  version: 1.0\n---\n` }],
      { path: ['metadata', 'version'] },
    ],
    [
      'allowed-tools as a YAML list of numbers',
      (slug) => [{ filename: 'SKILL.md', content: `---\nname: ${slug}\ndescription: d\nallowed-tools:\n  - 1\n---\n` }],
      { path: ['allowed-tools'] },
    ],
  ];

  it.each(cases)('refuses %s with 400 invalid_skill, pointing at the problem, and stores nothing', async (_, files, where) => {
    const slug = fresh('refused');
    const sent = files(slug);
    const issues = await invalidSkill(await publishWith(slug, sent));
    expect(issues).toContainEqual(expect.objectContaining(where));
    for (const issue of issues) expect(issue.message).toEqual(expect.any(String));
    expect((await stack.request(`/api/registry/${slug}`)).status).toBe(404);
    for (const file of sent) expect(await storedContent(file.content), file.filename).toBe(false);
  });

  it('lists every problem in one answer, not only the first', async () => {
    const slug = fresh('many-problems');
    const content = `---\nname: Not_A_Slug\ndescription: ""\nlicense: 1\ncompatibility: 2\nmetadata: [a]\nallowed-tools: [1]\n---\n`;
    const issues = await invalidSkill(await publishWith(slug, [{ filename: 'SKILL.md', content }]));
    expect(issues.map((i) => i.path?.[0]).sort()).toEqual(['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']);
    const res = await publishWith(slug, [{ filename: 'SKILL.md', content }]);
    expect((await json(res)).error.message).toMatch(/^The files are not a valid Agent Skill: SKILL.md: .+ \(and 5 more problems\)$/);
  });

  it('accepts the optional keys well typed, and a byte-order mark and CRLF line breaks', async () => {
    const slug = fresh('all-keys');
    const content = `\uFEFF---\r\nname: ${slug}\r\ndescription: >\r\n  Folded text\r\nlicense: MIT\r\ncompatibility: Needs git\r\nmetadata:\r\n  author: example-org\r\n  version: "1.0"\r\nallowed-tools: Bash(git:*) Read\r\n---\r\n# Body\r\n`;
    const res = await publishWith(slug, [{ filename: 'SKILL.md', content }]);
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await json(res)).warnings).toEqual([expect.stringContaining('byte-order mark')]);
    expect(await storedContent(content)).toBe(true);
  });

  it('accepts allowed-tools as a YAML list of tool names with a warning, and keeps SKILL.md as written', async () => {
    const slug = fresh('tool-list');
    const content = `---\nname: ${slug}\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(git:*)\n---\n# Body\n`;
    const res = await publishWith(slug, [{ filename: 'SKILL.md', content }]);
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await json(res)).warnings).toEqual([expect.stringMatching(/^allowed-tools is a YAML list: Claude Code reads it/)]);
    expect(await storedContent(content)).toBe(true);
  });

  it('refuses a description over 1,024 characters, in the body or in SKILL.md, saying how to fix it', async () => {
    const long = 'd'.repeat(1068);
    const slug = fresh('long-description');
    const inBody = await publishWith(slug, [], { description: long });
    expect(inBody.status).toBe(400);
    expect(JSON.stringify(await json(inBody))).toContain('move the rest into the body of SKILL.md');
    const inFile = await invalidSkill(await publishWith(slug, [{ filename: 'SKILL.md', content: `---\nname: ${slug}\ndescription: ${long}\n---\n` }]));
    expect(inFile).toEqual([expect.objectContaining({ path: ['description'], message: expect.stringContaining('move the rest into the body of SKILL.md') })]);
  });

  it('answers unknown top-level keys with warnings, and none when there are none', async () => {
    const slug = fresh('warned');
    const content = `---\nname: ${slug}\ndescription: d\ncategory: documents\nallowed_tools: Read\nflavour: mint\n---\n`;
    const res = await publishWith(slug, [{ filename: 'SKILL.md', content }]);
    expect(res.status).toBe(201);
    const { warnings } = await json(res);
    expect(warnings).toHaveLength(3);
    expect(warnings.join('\n')).toContain('"category" at the top level');
    expect(warnings.join('\n')).toContain('did you mean "allowed-tools"');
    expect(warnings.join('\n')).toContain('"flavour" is not an Agent Skills front-matter key');
    expect(await json(await publishWith(fresh('clean'), []))).not.toHaveProperty('warnings');
  });

  it('refuses a first publish whose SKILL.md names another slug than the one made from the name', async () => {
    const res = await withKey(stack, aliceKey, '/api/publish', {
      body: { name: 'Pretty Markdown', description: 'd', category: 'docs', files: [skillFile('pretty-md')] },
    });
    expect(await invalidSkill(res)).toEqual([{ file: 'SKILL.md', path: ['name'], message: expect.stringContaining('"pretty-markdown"') }]);
  });

  it('spends no publish slot on a skill it refuses', async () => {
    const limited = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1' });
    const key = await (await Client.signIn(limited, 'erin')).createKey();
    const bad = await withKey(limited, key, '/api/publish', { body: skillBody({ files: [{ filename: 'SKILL.md', content: '# no front matter' }] }) });
    expect(bad.status).toBe(400);
    expect((await withKey(limited, key, '/api/publish', { body: skillBody() })).status).toBe(201);
  });
});

describe('the interface example: a publish without files', () => {
  it('answers 201 and stores a conforming SKILL.md: the slug, the description, a heading with the name', async () => {
    const res = await withKey(stack, aliceKey, '/api/publish', {
      body: { name: 'Pretty JSON', description: 'Formats JSON: keys sorted, "quotes" kept', category: 'dev tools' },
    });
    expect(res.status).toBe(201);
    const skill = await json(res);
    expect(skill).not.toHaveProperty('warnings');
    const delivered = await json(await stack.request(`/api/deliver/${skill.id}`));
    expect(delivered.files).toEqual([
      { filename: 'SKILL.md', content: '---\nname: pretty-json\ndescription: \'Formats JSON: keys sorted, "quotes" kept\'\n---\n\n# Pretty JSON\n' },
    ]);
  });
});

describe('new versions', () => {
  it('are checked too: 400 invalid_skill and nothing stored, then a conforming one is published with its warnings', async () => {
    const slug = fresh('versioned');
    const { id } = await json(await publishWith(slug, [skillFile(slug)]));
    const lost = { filename: 'SKILL.md', content: `# ${slug} lost its front matter\n` };
    const issues = await invalidSkill(await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version: '1.1.0', files: [lost] } }));
    expect(issues).toEqual([{ file: 'SKILL.md', message: expect.stringContaining('must begin with YAML front matter') }]);
    expect(await storedContent(lost.content)).toBe(false);
    expect((await listVersions(stack.deps.db, id)).map((v) => v.version)).toEqual(['1.0.0']);

    const none = await invalidSkill(await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version: '1.1.0' } }));
    expect(none).toEqual([{ file: 'SKILL.md', message: expect.stringContaining('there are no files') }]);

    const renamed = await invalidSkill(
      await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version: '1.1.0', files: [skillFile('renamed')] } }),
    );
    expect(renamed).toEqual([{ file: 'SKILL.md', path: ['name'], message: `name "renamed" must be the skill's slug, "${slug}"` }]);

    const warned = { filename: 'SKILL.md', content: `---\nname: ${slug}\ndescription: d\nslug: ${slug}\n---\n` };
    const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version: '1.1.0', files: [warned] } });
    expect(res.status).toBe(201);
    expect((await json(res)).warnings).toEqual([expect.stringContaining('"slug" at the top level')]);
  });

  it('checks conformance after the author: someone else learns 403, not what is wrong with the files', async () => {
    const slug = fresh('not-yours');
    const { id } = await json(await publishWith(slug, [skillFile(slug)]));
    const bobKey = await (await Client.signIn(stack, 'bob')).createKey();
    const res = await withKey(stack, bobKey, `/api/skills/${id}/versions`, { body: { version: '1.1.0', files: [{ filename: 'x.md', content: 'x' }] } });
    expect(res.status).toBe(403);
  });
});

describe('front matter out of bounds (docs/agent-skills.md rule 4)', () => {
  /** The front matter of the attack: 10,000 keys no client reads, 89 KB. */
  const flooded = (slug: string) => ({
    filename: 'SKILL.md',
    content: `---\nname: ${slug}\ndescription: d\n${Array.from({ length: 10_000 }, (_, i) => `k${i}: v`).join('\n')}\n---\n`,
  });

  it('refuses 10,000 unknown keys with 400 invalid_skill naming the size, where it published them with 10,000 warnings', async () => {
    const slug = fresh('flooded');
    const issues = await invalidSkill(await publishWith(slug, [flooded(slug)]));
    expect(issues).toEqual([{ file: 'SKILL.md', message: expect.stringMatching(/^the front matter is \d+ bytes; at most 16384 are allowed/) }]);
    const { id } = await json(await publishWith(slug, [skillFile(slug)]));
    const version = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version: '1.1.0', files: [flooded(slug)] } });
    expect((await invalidSkill(version))[0]!.message).toContain('at most 16384');
  });

  it('answers a resent version with 409 version_exists before reading its files', async () => {
    const slug = fresh('resent');
    const { id } = await json(await publishWith(slug, [skillFile(slug)]));
    const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version: '1.0.0', files: [flooded(slug)] } });
    expect(res.status).toBe(409);
    expect((await json(res)).error.code).toBe('version_exists');
  });

  it('answers a taken slug with 409 slug_taken, and unknown dependencies with 400, before reading the files', async () => {
    const slug = fresh('taken');
    expect((await publishWith(slug, [skillFile(slug)])).status).toBe(201);
    const again = await publishWith(slug, [flooded(slug)]);
    expect((await json(again)).error.code).toBe('slug_taken');
    const other = fresh('depends');
    const unknown = await publishWith(other, [flooded(other)], { dependencies: { 'no-such-skill': '^1.0.0' } });
    expect(await json(unknown)).toMatchObject({ error: { code: 'invalid_request', details: { issues: [{ path: ['dependencies', 'no-such-skill'] }] } } });
  });
});

describe('the discovery index', () => {
  it("lists the SKILL.md description, not the listing's", async () => {
    const slug = fresh('described');
    await publishWith(slug, [skillFile(slug, '# Body', 'What SKILL.md says the skill does')], { description: 'What the listing says' });
    await stack.idle();
    const index = await json(await stack.request('/.well-known/agent-skills/index.json'));
    expect(index.skills.find((s: { name: string }) => s.name === slug).description).toBe('What SKILL.md says the skill does');
    const catalog = await json(await stack.request('/.well-known/skills.json'));
    expect(catalog.skills.find((s: { slug: string }) => s.slug === slug).description).toBe('What the listing says');
  });
});

describe('executable files', () => {
  it(
    'keep their flag from publish to the version item, delivery, the bundle (and its integrity) and the archive (0755)',
    async () => {
      const slug = fresh('executable');
      const files = [
        skillFile(slug),
        { filename: 'scripts/run.sh', content: '#!/bin/sh\necho hi\n', executable: true },
        { filename: 'notes.md', content: 'n' },
      ];
      const { id } = await json(await publishWith(slug, files));
      // The script runs in the sandbox before the version is delivered by default.
      await untilObserved(stack, aliceKey, id);
      const stored = (await getVersion(stack.deps.db, id, '1.0.0'))!;
      expect(stored.files.map((f) => [f.filename, f.executable ?? false])).toEqual([
        ['SKILL.md', false],
        ['notes.md', false],
        ['scripts/run.sh', true],
      ]);
      const delivered = await json(await stack.request(`/api/deliver/${id}`));
      expect(delivered.files.find((f: { filename: string }) => f.filename === 'scripts/run.sh')).toEqual({
        filename: 'scripts/run.sh',
        content: '#!/bin/sh\necho hi\n',
        executable: true,
      });
      expect(delivered.files.find((f: { filename: string }) => f.filename === 'notes.md')).not.toHaveProperty('executable');

      await stack.idle();
      const registry = await json(await stack.request(`/api/registry/${slug}`));
      const bundleText = await (await stack.request(`/bundles/${slug}/1.0.0.json`)).text();
      expect(JSON.parse(bundleText).files).toEqual(delivered.files);
      expect(`sha256-${createHash('sha256').update(bundleText).digest('base64')}`).toBe(registry.versions[0].integrity);
      // The flag is part of the integrity: the same bytes without it hash differently.
      const plain = files.map(({ filename, content }) => decodeFile({ filename, content })!);
      expect(registry.versions[0].integrity).not.toBe(bundleIntegrity(plain));

      const archive = gunzipSync(Buffer.from(await (await stack.request(`/.well-known/agent-skills/${slug}/1.0.0.tar.gz`)).arrayBuffer()));
      expect(tarModes(archive)).toEqual({ 'SKILL.md': 0o644, 'notes.md': 0o644, 'scripts/run.sh': 0o755 });
    },
    OBSERVED_WITHIN_MS,
  );

  it('refuses an executable flag that is not a boolean', async () => {
    const slug = fresh('bad-flag');
    const res = await publishWith(slug, [skillFile(slug), { filename: 'run.sh', content: 'x', executable: 'yes' }]);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: 'invalid_request', details: { issues: [{ path: ['files', 1, 'executable'] }] } });
  });
});

describe('versions published before the check', () => {
  it('are listed in the discovery index with their SKILL.md description when they conform, and left out and reported by the full rebuild when not', async () => {
    const own = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
    const key = await (await Client.signIn(own, 'frank')).createKey();
    const legacyOk = await json(await withKey(own, key, '/api/publish', { body: skillBody({ slug: 'legacy-ok' }) }));
    const legacyBad = await json(await withKey(own, key, '/api/publish', { body: skillBody({ slug: 'legacy-bad' }) }));
    await own.idle();
    // What the table held before the check existed: no recorded description, and for one skill a
    // SKILL.md that never had front matter.
    await rewriteAsLegacy(own.deps, legacyOk.id, '1.0.0', skillMd('legacy-ok', '# Old but fine', 'Described in its old SKILL.md'));
    await rewriteAsLegacy(own.deps, legacyBad.id, '1.0.0', '# An old skill without front matter\n');

    const report = await own.runtime.rebuildAll();
    expect(report.nonConforming).toEqual([
      {
        skillId: legacyBad.id,
        slug: 'legacy-bad',
        version: '1.0.0',
        issues: [{ file: 'SKILL.md', message: expect.stringContaining('must begin with YAML front matter') }],
      },
    ]);
    expect(report.failed).toEqual([]);
    const index = await json(await own.request('/.well-known/agent-skills/index.json'));
    expect(index.skills.map((s: { name: string; description: string }) => [s.name, s.description])).toEqual([['legacy-ok', 'Described in its old SKILL.md']]);
    // Still in the catalog and installable from the registry: only standard clients' index leaves it out.
    const catalog = await json(await own.request('/.well-known/skills.json'));
    expect(catalog.skills.map((s: { slug: string }) => s.slug).sort()).toEqual(['legacy-bad', 'legacy-ok']);

    // The incremental rebuild agrees, and a conforming new version brings the skill back.
    own.deps.changed([legacyBad.id]);
    await own.idle();
    expect((await json(await own.request('/.well-known/agent-skills/index.json'))).skills).toHaveLength(1);
    expect((await withKey(own, key, `/api/skills/${legacyBad.id}/versions`, { body: { version: '1.0.1', files: [skillFile('legacy-bad')] } })).status).toBe(
      201,
    );
    await own.idle();
    const names = (await json(await own.request('/.well-known/agent-skills/index.json'))).skills.map((s: { name: string }) => s.name);
    expect(names).toEqual(['legacy-bad', 'legacy-ok']);
  });
});

/** Each entry's path and permission bits in an uncompressed tar. */
function tarModes(tar: Buffer): Record<string, number> {
  const modes: Record<string, number> = {};
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    if (name === '') break;
    modes[name] = Number.parseInt(header.subarray(100, 108).toString('utf8').replace(/\0.*$/s, '').trim(), 8);
    const size = Number.parseInt(header.subarray(124, 136).toString('utf8').replace(/\0.*$/s, '').trim(), 8);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return modes;
}
