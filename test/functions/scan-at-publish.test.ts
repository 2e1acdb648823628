import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { scanResultSchema } from '#core/scan/scan-result-schema';
import { establishedPublisher } from '../support/behaviour.ts';
import { CLEAN_SKILL_MD, MALICIOUS_SKILL_MD, SUSPICIOUS_EXCERPT, SUSPICIOUS_SKILL_MD } from '../support/scan-samples.ts';
import { Client, createTestStack, json, renamedSkillMd, skillBody, skillBodyWithSkillMd, type TestStack, withKey } from '../support/stack.ts';

/**
 * The scan at publish (docs/scanning.md, docs/api.md §7.4) through the real app and storage: a
 * malicious version is refused with its findings and leaves nothing behind, a suspicious or clean
 * one is published with its scan in the answer, the registry document and the versions document.
 */
let stack: TestStack;
let key: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  // Flagged versions of an established publisher are published flagged, not held for review.
  ({ key } = await establishedPublisher(stack, 'alice'));
});

/** The files of a version of `slug` whose SKILL.md is the sample `text`. */
const files = (text: string, slug: string) => [{ filename: 'SKILL.md', content: renamedSkillMd(text, slug) }];

async function storedState(s: TestStack) {
  await s.idle();
  const { Items } = await s.deps.db.doc.send(new ScanCommand({ TableName: s.deps.db.table }));
  const listed = async (bucket: string) => ((await s.deps.s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key).sort();
  return {
    items: (Items ?? []).map((i) => `${i.pk}/${i.sk}`).sort(),
    content: await listed(s.config.contentBucket),
    static: await listed(s.config.staticBucket),
  };
}

async function registry(slug: string) {
  await stack.idle();
  return { doc: await json(await stack.request(`/api/registry/${slug}`)), all: await json(await stack.request(`/api/registry/${slug}/versions`)) };
}

describe('a malicious version', () => {
  it('is refused with 422 content_rejected and its findings; nothing is stored and no publish slot is spent', async () => {
    const limited = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1' });
    const limitedKey = await (await Client.signIn(limited, 'mallory')).createKey();
    const before = await storedState(limited);

    const res = await withKey(limited, limitedKey, '/api/publish', { body: skillBodyWithSkillMd(MALICIOUS_SKILL_MD) });
    expect(res.status).toBe(422);
    const { error } = await json(res);
    expect(error.code).toBe('content_rejected');
    expect(error.message).toMatch(/critical/);
    expect(error.details.rulesVersion).toEqual(expect.any(String));
    expect(error.details.findings).toContainEqual(expect.objectContaining({ rule: 'decode-to-shell', severity: 'critical', file: 'SKILL.md', line: 10 }));
    for (const finding of error.details.findings) expect(Object.keys(finding).sort()).toEqual(['category', 'file', 'line', 'message', 'rule', 'severity']);
    expect(await storedState(limited)).toEqual(before);

    // The limit is one publish a minute: had the refusal spent it, this would be a 429.
    const clean = await withKey(limited, limitedKey, '/api/publish', { body: skillBodyWithSkillMd(CLEAN_SKILL_MD) });
    expect(clean.status).toBe(201);
    expect((await withKey(limited, limitedKey, '/api/publish', { body: skillBody() })).status).toBe(429);
  });

  it('is refused as a new version too, and the skill stays as it was', async () => {
    const skill = await json(await withKey(stack, key, '/api/publish', { body: skillBodyWithSkillMd(CLEAN_SKILL_MD) }));
    const before = await storedState(stack);
    const res = await withKey(stack, key, `/api/skills/${skill.id}/versions`, { body: { version: '1.1.0', files: files(MALICIOUS_SKILL_MD, skill.slug) } });
    expect(res.status).toBe(422);
    expect((await json(res)).error).toMatchObject({ code: 'content_rejected', details: { findings: expect.any(Array) } });
    expect(await storedState(stack)).toEqual(before);
    expect((await stack.request(`/api/deliver/${skill.id}?version=1.1.0`)).status).toBe(404);
    expect((await registry(skill.slug)).doc.currentVersion).toBe('1.0.0');
  });
});

describe('a suspicious version', () => {
  it('is published (201) with its scan in the answer, the registry document and the versions document', async () => {
    const res = await withKey(stack, key, '/api/publish', { body: skillBodyWithSkillMd(SUSPICIOUS_SKILL_MD) });
    expect(res.status).toBe(201);
    const skill = await json(res);
    expect(scanResultSchema.parse(skill.scan)).toEqual(skill.scan);
    expect(skill.scan).toEqual({
      verdict: 'suspicious',
      rulesVersion: expect.any(String),
      findings: [
        {
          rule: 'pipe-to-shell',
          category: 'download-execute',
          severity: 'high',
          file: 'SKILL.md',
          line: 8,
          message: expect.stringContaining(SUSPICIOUS_EXCERPT),
        },
      ],
    });

    const { doc, all } = await registry(skill.slug);
    expect(doc.scan).toEqual(skill.scan);
    expect(doc.versions[0].scan).toEqual(skill.scan);
    expect(all.versions[0].scan).toEqual(skill.scan);
  });

  it('as a new version carries its own scan, and the top level of the registry document is the current version', async () => {
    const skill = await json(await withKey(stack, key, '/api/publish', { body: skillBodyWithSkillMd(CLEAN_SKILL_MD) }));
    const res = await withKey(stack, key, `/api/skills/${skill.id}/versions`, { body: { version: '2.0.0', files: files(SUSPICIOUS_SKILL_MD, skill.slug) } });
    expect(res.status).toBe(201);
    const created = await json(res);
    expect(created.scan.verdict).toBe('suspicious');
    // A prerelease is listed with its scan but does not become current.
    const pre = await json(
      await withKey(stack, key, `/api/skills/${skill.id}/versions`, { body: { version: '3.0.0-rc.1', files: files(CLEAN_SKILL_MD, skill.slug) } }),
    );
    expect(pre.scan.verdict).toBe('clean');

    const { doc, all } = await registry(skill.slug);
    expect(doc.currentVersion).toBe('2.0.0');
    expect(doc.scan).toEqual(created.scan);
    const verdicts = (list: { version: string; scan: { verdict: string } }[]) => Object.fromEntries(list.map((v) => [v.version, v.scan.verdict]));
    expect(verdicts(doc.versions)).toEqual({ '3.0.0-rc.1': 'clean', '2.0.0': 'suspicious', '1.0.0': 'clean' });
    expect(verdicts(all.versions)).toEqual(verdicts(doc.versions));
  });

  it('of a paid skill quotes none of its content, in the answer or the registry', async () => {
    const res = await withKey(stack, key, '/api/publish', { body: skillBodyWithSkillMd(SUSPICIOUS_SKILL_MD, { paid: true }) });
    expect(res.status).toBe(201);
    const skill = await json(res);
    expect(skill.scan.verdict).toBe('suspicious');
    expect(skill.scan.findings[0].message).not.toContain('curl');
    const { doc, all } = await registry(skill.slug);
    expect(JSON.stringify(doc)).not.toContain('get.example.com');
    expect(JSON.stringify(all)).not.toContain('get.example.com');
    expect(doc.scan).toEqual(skill.scan);
  });
});

describe('what the indexes say of a suspicious skill', () => {
  /** The entries of the catalog (by slug) or of a discovery index (by name, which is the slug there). */
  const entries = async (path: string) => {
    const doc = await json(await stack.request(path));
    return new Map<string, any>(doc.skills.map((entry: { name: string; slug?: string }) => [entry.slug ?? entry.name, entry]));
  };
  const indexes = async (slug: string) => {
    await stack.idle();
    return {
      agentSkills: (await entries('/.well-known/agent-skills/index.json')).get(slug),
      legacy: (await entries('/.well-known/skills/index.json')).get(slug),
      scoped: (await entries(`/skills/${slug}/.well-known/agent-skills/index.json`)).get(slug),
      catalog: (await entries('/.well-known/skills.json')).get(slug),
    };
  };

  it('is left out of the discovery indexes skills reads, still answers at its own URL with the verdict, and stays in the catalog with it; a clean release brings it back', async () => {
    const skill = await json(await withKey(stack, key, '/api/publish', { body: skillBodyWithSkillMd(SUSPICIOUS_SKILL_MD) }));
    const flagged = await indexes(skill.slug);
    expect(flagged.agentSkills).toBeUndefined();
    expect(flagged.legacy).toBeUndefined();
    expect(flagged.scoped).toMatchObject({ name: skill.slug, version: '1.0.0', verdict: 'suspicious', description: expect.stringMatching(/^\[suspicious: /) });
    expect(flagged.catalog).toMatchObject({ slug: skill.slug, currentVersion: '1.0.0', verdict: 'suspicious' });
    // What the scoped index names is there to download.
    expect((await stack.request(flagged.scoped.url)).status).toBe(200);

    await withKey(stack, key, `/api/skills/${skill.id}/versions`, { body: { version: '1.1.0', files: files(CLEAN_SKILL_MD, skill.slug) } });
    const cleared = await indexes(skill.slug);
    for (const entry of [cleared.agentSkills, cleared.legacy, cleared.scoped]) {
      expect(entry).toMatchObject({ name: skill.slug, version: '1.1.0' });
      expect(entry).not.toHaveProperty('verdict');
      expect(entry.description).not.toMatch(/^\[suspicious/);
    }
    expect(cleared.catalog).toMatchObject({ currentVersion: '1.1.0', verdict: 'clean' });
  });

  it('is left out by a full rebuild as by the incremental one', async () => {
    const skill = await json(await withKey(stack, key, '/api/publish', { body: skillBodyWithSkillMd(SUSPICIOUS_SKILL_MD) }));
    await stack.idle();
    expect((await stack.runtime.rebuildAll()).failed).toEqual([]);
    const rebuilt = await indexes(skill.slug);
    expect(rebuilt.agentSkills).toBeUndefined();
    expect(rebuilt.scoped).toMatchObject({ verdict: 'suspicious' });
    expect(rebuilt.catalog).toMatchObject({ verdict: 'suspicious' });
  });
});

describe('a clean version', () => {
  it('is published with a clean scan and no findings', async () => {
    const res = await withKey(stack, key, '/api/publish', { body: skillBodyWithSkillMd(CLEAN_SKILL_MD) });
    expect(res.status).toBe(201);
    const skill = await json(res);
    expect(skill.scan).toEqual({ verdict: 'clean', rulesVersion: expect.any(String), findings: [] });
    const version = await json(
      await withKey(stack, key, `/api/skills/${skill.id}/versions`, { body: { version: '1.0.1', files: files(CLEAN_SKILL_MD, skill.slug) } }),
    );
    expect(version.scan).toEqual(skill.scan);
  });
});

describe('the order of checks', () => {
  it('answers a taken slug with 409 before looking at the content, and a malicious version of a taken version number with 409', async () => {
    const skill = await json(await withKey(stack, key, '/api/publish', { body: skillBodyWithSkillMd(CLEAN_SKILL_MD) }));
    const taken = await withKey(stack, key, '/api/publish', { body: skillBodyWithSkillMd(MALICIOUS_SKILL_MD, { slug: skill.slug }) });
    expect((await json(taken)).error.code).toBe('slug_taken');
    const exists = await withKey(stack, key, `/api/skills/${skill.id}/versions`, { body: { version: '1.0.0', files: files(MALICIOUS_SKILL_MD, skill.slug) } });
    expect((await json(exists)).error.code).toBe('version_exists');
  });
});
