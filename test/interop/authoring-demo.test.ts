import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCK_SCALAR_SKILL, CHANGED_SKILL, type DemoResult, LINKED_SKILL, runAuthoringDemo, SKILL_COUNT, SUSPICIOUS_SKILL } from '#scripts/demo-authoring';
import { ensurePeerClients } from '#scripts/peer-clients';

/**
 * The author's walk-through of the README ("Try it as an author"), scripts/demo-authoring.ts, run
 * whole against `npm start` and the fake GitHub: 15 real skills imported in one step, a push
 * that re-imports only the skill it changed, the same folder through `skillpress publish --all`,
 * `skills find` listing ours and `clawhub install` warning of the suspicious one. It reads the
 * skills' repositories from SKILLPRESS_DEMO_SOURCES (cloned from GitHub when missing), and the
 * clients from npm, as the rest of this suite does.
 */

const work = mkdtempSync(join(tmpdir(), 'skillpress-demo-test-'));
const transcript: string[] = [];
let demo: DemoResult;
/** What the demo printed, to read beside a failure. */
const printed = () => transcript.join('\n');

beforeAll(async () => {
  const clients = ensurePeerClients(process.env.PEER_CLIENTS_DIR ?? join(tmpdir(), 'skillpress-peer-clients'));
  const sources = process.env.SKILLPRESS_DEMO_SOURCES ?? join(tmpdir(), 'skillpress-demo-sources');
  demo = await runAuthoringDemo({ sources, work, clients, print: (line) => transcript.push(line) });
}, 900_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the author demo (scripts/demo-authoring.ts)', () => {
  it('imports the repository of 15 skills in one step, a block-scalar description as text and a link as its target', () => {
    expect(demo.imported.folders, printed()).toHaveLength(SKILL_COUNT);
    expect(
      demo.imported.folders.filter((f) => f.outcome !== 'published'),
      printed(),
    ).toEqual([]);
    expect(demo.blockScalar.description).toMatch(/^Builds remote MCP \(Model Context Protocol\) servers on Cloudflare Workers with tools/);
    expect(demo.blockScalar.description).not.toContain('\n');
    expect(demo.linkedFiles).toEqual(expect.arrayContaining(['SKILL.md', 'README.md']));
    expect(demo.imported.folders.map((f) => f.slug)).toEqual(expect.arrayContaining([BLOCK_SCALAR_SKILL, LINKED_SKILL]));
  });

  it('re-imports on the push only the skill it changed', () => {
    const changed = demo.reimported.folders.filter((f) => f.outcome !== 'unchanged');
    expect(changed, printed()).toEqual([{ path: CHANGED_SKILL, slug: CHANGED_SKILL, outcome: 'versioned', version: '1.0.1' }]);
    expect(demo.reimported.folders).toHaveLength(SKILL_COUNT);
  });

  it('publishes the same folder with publish --all in one run, waiting out the rate limit', () => {
    expect(demo.publishAll.code, printed()).toBe(0);
    expect(demo.publishAll.output.match(/^Published \S+@1\.0\.0/gm)).toHaveLength(SKILL_COUNT);
    expect(demo.publishAll.output).toContain('Rate limited');
  });

  it('lists ours in skills find, with a source the skills CLI can add', () => {
    expect(demo.find.output, printed()).toContain(`${demo.origins.imported}/skills/systematic-debugging@systematic-debugging`);
  });

  it('has clawhub warn of the suspicious skill and install nothing without --force', () => {
    expect(demo.clawhubInstall.code, printed()).not.toBe(0);
    expect(demo.clawhubInstall.output).toContain(`"${SUSPICIOUS_SKILL}" is flagged for ClawHub security review`);
    expect(demo.clawhubInstall.output).toContain('Use --force to install suspicious skills');
  });
});
