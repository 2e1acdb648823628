import { runPool } from './load.ts';
import { latencyRows, round, type Row } from './table.ts';
import { signInWithKey, startBenchStack, timedPost } from './stack.ts';

/** Publish latency: new skills and new versions, one at a time and 16 at once, over real HTTP. */
export async function benchPublish(): Promise<Row[]> {
  const stack = await startBenchStack({ SKILLPRESS_PUBLISH_LIMIT: '100000', SKILLPRESS_VERSION_LIMIT: '100000' });
  try {
    const { key } = await signInWithKey(stack.baseUrl, 'bench');
    const post = timedPost(stack.baseUrl, key);
    const files = (slug: string) => [
      { filename: 'SKILL.md', content: `---\nname: ${slug}\ndescription: benchmark skill\n---\n${'Instructions. '.repeat(200)}` },
      { filename: 'scripts/run.sh', content: '#!/bin/sh\necho hi\n', executable: true },
    ];
    const skillTimes: number[] = [];
    let skillId = '';
    let skillSlug = '';
    for (let i = 0; i < 60; i++) {
      const { ms, body } = await post('/api/publish', { name: `Bench skill ${i}`, description: 'bench', category: 'bench', files: files(`bench-skill-${i}`) });
      if (i >= 10) skillTimes.push(ms); // the first requests warm connections and JIT
      skillId = body.id;
      skillSlug = `bench-skill-${i}`;
    }
    const versionTimes: number[] = [];
    for (let i = 1; i <= 100; i++) {
      const { ms } = await post(`/api/skills/${skillId}/versions`, { version: `1.${i}.0`, changelog: `change ${i}`, files: files(skillSlug) });
      versionTimes.push(ms);
    }
    const started = performance.now();
    const concurrent = await runPool(160, 16, (i) => post(`/api/skills/${skillId}/versions`, { version: `2.${i}.0`, files: files(skillSlug) }));
    const seconds = (performance.now() - started) / 1000;
    return [
      ...latencyRows('publish', 'new skill (sequential)', skillTimes),
      ...latencyRows('publish', 'new version (sequential)', versionTimes),
      ...latencyRows(
        'publish',
        'new version (16 at once)',
        concurrent.map((c) => c.ms),
      ),
      { section: 'publish', metric: 'versions/s (16 at once)', value: round(160 / seconds), unit: 'req/s' },
    ];
  } finally {
    await stack.stop();
  }
}
