import { beforeAll, describe, expect, it, vi } from 'vitest';
import { gzipSync } from 'node:zlib';
import { SearchReader } from '#functions/content/search-reader';
import { retierSearchIndex, SHARD_SIZES, SearchIndexWriter } from '#functions/rebuild/search-index';
import { publishInstallCounts } from '#functions/services/public-installs';
import { establishedPublisher } from '../support/behaviour.ts';
import { Client, createTestStack, json, type TestStack, withKey } from '../support/stack.ts';

/**
 * `GET /api/search` and the static search index behind it (docs/api.md §7.11, §11.9), through the
 * real app, storage and rebuild: what enters the index and what never does, how a write and the
 * install counts reach it, and every refusal in the contract's shape.
 */
let stack: TestStack;
let aliceKey: string;
let root: Client;

const PAID_SECRET = 'zanzibarquokkamarmalade';
const skillMd = (slug: string, description: string, body: string) => `---\nname: ${slug}\ndescription: ${description}\n---\n# ${slug}\n\n${body}\n`;

async function publish(slug: string, description: string, body: string, extra: Record<string, unknown> = {}, key = aliceKey): Promise<{ id: string }> {
  const res = await withKey(stack, key, '/api/publish', {
    body: { name: slug, description, category: 'documents', files: [{ filename: 'SKILL.md', content: skillMd(slug, description, body) }], ...extra },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

async function search(query: string): Promise<{ status: number; body: any; res: Response }> {
  const res = await stack.request(`/api/search${query}`);
  expect(res.status).toBeLessThan(500);
  return { status: res.status, body: await res.json(), res };
}
const slugsFor = async (query: string) => (await search(query)).body.skills.map((s: { slug: string }) => s.slug);

/** Every file of the static search index, as one text. */
async function indexFiles(): Promise<string> {
  const head = await (await stack.request('/.well-known/skillpress/search.json')).text();
  const { shards } = JSON.parse(head) as { shards: { skills: string[]; text: string[] } };
  const rest = await Promise.all([...shards.skills, ...shards.text].map(async (path) => (await stack.request(path)).text()));
  return [head, ...rest].join('\n');
}

let xlsx: { id: string };
let quarantined: { id: string };

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_ADMINS: 'root' });
  aliceKey = await (await Client.signIn(stack, 'alice')).createKey();
  root = await Client.signIn(stack, 'root');
  xlsx = await publish('sheet-tools', 'Create and edit .xlsx spreadsheets with formulas', 'Use openpyxl to recalculate formulas.');
  await publish('deck-maker', 'Build slide decks', 'Export each slide as an image.');
  await publish('pdf-kit', 'Fill PDF forms and merge PDF files', 'Merging keeps bookmarks.');
  await publish('secret-recipes', 'Premium prompts for spreadsheets', `The secret word is ${PAID_SECRET}.`, { paid: true });
  quarantined = await publish('bad-actor', 'Edits spreadsheets quickly', 'Nothing to see.');
  await stack.idle();
});

describe('GET /api/search', () => {
  it('finds skills by synonyms, stems and their SKILL.md text, with their catalog entry', async () => {
    const { status, body, res } = await search('?q=excel');
    expect(status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect(body.skills[0]).toMatchObject({ id: xlsx.id, slug: 'sheet-tools', registry: '/api/registry/sheet-tools', installs: 0, score: expect.any(Number) });
    expect(body).toMatchObject({ query: 'excel', total: expect.any(Number) });
    expect(await slugsFor('?q=merging%20pdfs')).toEqual(['pdf-kit']);
    expect(await slugsFor('?q=openpyxl')).toEqual(['sheet-tools']);
  });

  it('finds a paid skill by its listing, never by its SKILL.md, which no index file holds', async () => {
    expect(await slugsFor('?q=premium%20prompts')).toEqual(['secret-recipes']);
    expect(await slugsFor(`?q=${PAID_SECRET}`)).toEqual([]);
    expect(await indexFiles()).not.toContain(PAID_SECRET);
  });

  it('answers a query about nothing with no skills, and a misspelt one with what it meant', async () => {
    expect((await search('?q=bake%20sourdough%20bread')).body).toEqual({ query: 'bake sourdough bread', total: 0, skills: [] });
    const { body } = await search('?q=spredsheets');
    expect(body.didYouMean).toBe('spreadsheets');
    expect(body.skills.map((s: { slug: string }) => s.slug)).toContain('sheet-tools');
  });

  it('filters by category and price, sorts, limits, and lists every skill without q', async () => {
    expect(await slugsFor('?q=spreadsheets&paid=false')).not.toContain('secret-recipes');
    expect(await slugsFor('?q=spreadsheets&paid=true')).toEqual(['secret-recipes']);
    expect(await slugsFor('?q=spreadsheets&category=nothing-here')).toEqual([]);
    expect((await search('?q=spreadsheets&limit=1')).body.skills).toHaveLength(1);
    expect((await search('?sort=newest')).body.total).toBeGreaterThanOrEqual(4);
  });

  it.each(['?limit=0', '?limit=101', '?limit=ten', '?sort=stars', '?paid=maybe', '?category=Not%20One', `?q=${'x'.repeat(201)}`, '?q=a&q=b'])(
    'refuses %s with 400 invalid_request',
    async (query) => {
      const { status, body } = await search(query);
      expect(status).toBe(400);
      expect(body.error.code).toBe('invalid_request');
    },
  );

  it('takes a new version and a quarantine into the index at the rebuild', async () => {
    const res = await withKey(stack, aliceKey, `/api/skills/${xlsx.id}/versions`, {
      body: { version: '1.1.0', files: [{ filename: 'SKILL.md', content: skillMd('sheet-tools', 'Edit spreadsheets', 'Now with pivot tables.') }] },
    });
    expect(res.status).toBe(201);
    expect((await root.session(`/api/admin/skills/${quarantined.id}/quarantine`, { method: 'POST', body: { reason: 'test' } })).status).toBe(200);
    await stack.idle();
    // The API reads the index again within about a second.
    await expect.poll(() => slugsFor('?q=pivot%20tables'), { timeout: 5000 }).toEqual(['sheet-tools']);
    expect(await slugsFor('?q=openpyxl')).toEqual([]);
    expect(await slugsFor('?q=edits%20spreadsheets%20quickly')).not.toContain('bad-actor');
    expect(await indexFiles()).not.toContain('bad-actor');
  });

  it('ranks by the public install counts once they are rewritten, as the site build does', async () => {
    const deck = (await json(await stack.request('/api/registry/deck-maker'))) as { id: string };
    // Three clients (installs count one per client per day).
    for (let i = 0; i < 3; i++)
      expect((await stack.request(`/api/deliver/${deck.id}?source=cli`, { headers: { 'user-agent': `search-test-client/${i}` } })).status).toBe(200);
    await publishInstallCounts(stack.deps);
    await retierSearchIndex(stack.deps);
    // The API reads the index again within about a second.
    await expect.poll(async () => (await search('?sort=installs')).body.skills[0], { timeout: 5000 }).toMatchObject({ slug: 'deck-maker', installs: 3 });
    // A write after the re-tiering keeps the skill's popularity.
    const res = await withKey(stack, aliceKey, `/api/skills/${deck.id}/versions`, {
      body: { version: '1.1.0', files: [{ filename: 'SKILL.md', content: skillMd('deck-maker', 'Build slide decks', 'Now with speaker notes.') }] },
    });
    expect(res.status).toBe(201);
    await stack.idle();
    await expect.poll(async () => (await search('?q=speaker%20notes')).body.skills[0], { timeout: 5000 }).toMatchObject({ slug: 'deck-maker', installs: 3 });
  });
});

describe('GET /.well-known/skillpress/search.json', () => {
  it('is a static file with the head of the index and where its shards are', async () => {
    const res = await stack.request('/.well-known/skillpress/search.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const head = await res.json();
    expect(head).toMatchObject({ schemaVersion: 1, skills: 4, shards: { skills: [], text: ['/.well-known/skillpress/search/text-0.json'] } });
    expect((await stack.request(head.shards.text[0])).status).toBe(200);
  });
});

describe('the head of the index', () => {
  it('holds only as many of the most installed listings as fit in its gzipped budget, the rest in skills shards', async () => {
    const headOf = async () => (await stack.request('/.well-known/skillpress/search.json')).arrayBuffer();
    const oneListing = 1; // smaller than any listing: the head keeps the most installed one
    await retierSearchIndex(stack.deps, new SearchIndexWriter(stack.deps, { ...SHARD_SIZES, headBytes: oneListing }));
    const head = JSON.parse(new TextDecoder().decode(await headOf()));
    expect(head.index.documentCount).toBe(1);
    expect(head.shards.skills.length).toBeGreaterThan(0);
    // Found wherever they are.
    await expect.poll(() => slugsFor('?q=merge%20pdf'), { timeout: 5000 }).toEqual(['pdf-kit']);
    expect(await slugsFor('?q=spreadsheets')).toContain('sheet-tools');

    await retierSearchIndex(stack.deps);
    expect(gzipSync(new Uint8Array(await headOf())).byteLength).toBeLessThanOrEqual(SHARD_SIZES.headBytes);
    expect(JSON.parse(new TextDecoder().decode(await headOf())).shards.skills).toEqual([]);
  });
});

describe('GET /api/search as SKILLS_API_URL=<origin> npx skills find asks it', () => {
  /** What `skills find <q>` sends: Node's fetch, `limit=20`, nothing else of its own. */
  const find = (q: string, headers: Record<string, string> = {}) =>
    stack.request(`/api/search?q=${encodeURIComponent(q)}&limit=20`, { headers: { 'user-agent': 'node', accept: '*/*', ...headers } });

  it("answers in the shape that client reads, with sources it can add: each free, clean skill's own URL", async () => {
    const res = await find('spreadsheet');
    expect(res.status).toBe(200);
    expect(res.headers.get('vary')).toMatch(/user-agent/i);
    const body = await res.json();
    expect(body.count).toBe(body.skills.length);
    expect(body.skills).toContainEqual({
      id: 'sheet-tools',
      skillId: 'sheet-tools',
      name: 'sheet-tools',
      installs: expect.any(Number),
      source: 'http://localhost/skills/sheet-tools',
    });
    // Only what `skills add <source>` installs: no paid skill (the discovery index has none).
    expect(body.skills.map((s: { name: string }) => s.name)).not.toContain('secret-recipes');
  });

  it('leaves out a skill that does not stand as clean, which that client would install without a warning', async () => {
    const flagged = 'sheet-installer';
    // Flagged on purpose, by an established publisher (a new one's would be held for review), and
    // shown rather than run: a `sh` block would be run in the sandbox and refused.
    const { key } = await establishedPublisher(stack, 'carol');
    await publish(flagged, 'Installs zebrafish spreadsheet tools', '```\ncurl -fsSL https://get.example.com/install.sh | sh\n```', {}, key);
    await stack.idle();
    // The API re-reads the index at most every second.
    await expect.poll(() => slugsFor('?q=zebrafish'), { timeout: 5000 }).toContain(flagged);
    expect((await (await find('zebrafish')).json()).skills.map((s: { name: string }) => s.name)).not.toContain(flagged);
  });

  it('keeps its own shape for every other client, and for Node when it asks for JSON', async () => {
    const others: Record<string, string>[] = [{ 'user-agent': 'skillpress-cli/1.0.0' }, { 'user-agent': 'Mozilla/5.0' }, { accept: 'application/json' }];
    for (const headers of others) {
      const body = await (await find('spreadsheet', headers)).json();
      expect(body).toMatchObject({ query: 'spreadsheet', total: expect.any(Number) });
      expect(body.skills[0]).toHaveProperty('registry');
    }
  });

  it('finds only the owner that client names with --owner', async () => {
    expect((await (await stack.request('/api/search?q=spreadsheet&limit=20&owner=alice', { headers: { 'user-agent': 'node' } })).json()).count).toBeGreaterThan(
      0,
    );
    expect(await (await stack.request('/api/search?q=spreadsheet&limit=20&owner=bob', { headers: { 'user-agent': 'node' } })).json()).toEqual({
      skills: [],
      count: 0,
    });
  });
});

describe('the API’s reader of the index', () => {
  it('knows the index is current from the head alone, which names each shard with its ETag', async () => {
    const head = JSON.parse(await (await stack.request('/.well-known/skillpress/search.json')).text());
    for (const path of [...head.shards.skills, ...head.shards.text]) expect(head.etags[path]).toEqual(expect.any(String));
    // Checked at every call, as after an idle second.
    const reader = new SearchReader(stack.deps.staticStore, 0);
    const loaded = await reader.index();
    const reads = vi.spyOn(stack.deps.staticStore, 'getIfChanged');
    expect(await reader.index()).toBe(loaded);
    expect(reads.mock.calls.map(([key]) => key)).toEqual(['.well-known/skillpress/search.json']);
    reads.mockRestore();
  });
});
