import { randomBytes } from 'node:crypto';
import { type CatalogEntry, catalogJson, catalogList } from '#core/catalog';
import { CATALOG_KEY } from '#core/static-paths';
import { createS3 } from '#functions/content/s3-client';
import { StaticStore } from '#functions/content/static-store';
import { configFromEnv } from '#functions/platform/config';
import { PagedCatalog } from '#functions/rebuild/paged-catalog';
import { ensureStorage, startEmbeddedServices } from '../local/stack.ts';
import { latencyRows, round, type Row } from './table.ts';

/**
 * One publish's catalog update at 1,000 and 100,000 skills, against a static bucket (s3rver)
 * seeded with that many catalog entries: what the rebuild does per write (patch the skill's
 * page and the index: functions/rebuild/paged-catalog.ts), by a rebuilder that wrote last and
 * holds the pages (nothing to read) and by a fresh one (the index and the page read back first). Beside
 * it, what a write cost before pages (the whole catalog serialised and written), and the
 * assembly of the whole catalog with its brotli and gzip copies, which production runs at most
 * once a minute off the write path. The per-write figure must stay flat: ≤ 1.5× from 1k to 100k.
 */
export async function benchCatalog(sizes = [1000, 100_000], writes = 40): Promise<Row[]> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const services = await startEmbeddedServices();
  const rows: Row[] = [];
  const p50 = new Map<number, { warm: number; cold: number }>();
  try {
    for (const size of sizes) {
      const config = configFromEnv({
        TABLE_NAME: `bench-catalog-${size}`,
        CONTENT_BUCKET: `bench-catalog-content-${size}`,
        STATIC_BUCKET: `bench-catalog-${size}-${randomBytes(3).toString('hex')}`,
        DYNAMODB_ENDPOINT: services.dynamoEndpoint,
        S3_ENDPOINT: services.s3Endpoint,
      });
      const s3 = createS3(config);
      await ensureStorage(config, s3);
      const store = new StaticStore(s3, config.staticBucket);
      const clock = () => new Date();
      const section = `catalog ${size / 1000}k`;
      const all = catalogList(Array.from({ length: size }, (_, i) => entry(i)));
      const seeding = performance.now();
      await new PagedCatalog(store, clock).replace(all, new Map());
      process.stderr.write(`bench: catalog of ${size} seeded in ${Math.round(performance.now() - seeding)} ms\n`);

      // Half updates of skills spread over the catalog, half new skills between them.
      const change = (i: number) => (i % 2 === 0 ? entry((i * 7919) % size, `2.${i}.0`) : entry(((i * 7919) % size) + 0.5));
      // A rebuilder that has written every page once holds them all: it reads nothing back.
      const warm = new PagedCatalog(store, clock);
      for (let n = 0; n < size; n += 300) await warm.patch([entry(n, '1.0.1')], [], warm.etags());
      const warmMs: number[] = [];
      for (let i = 0; i < writes; i++) {
        const started = performance.now();
        await warm.patch([change(i)], [], warm.etags());
        warmMs.push(performance.now() - started);
      }
      const coldMs: number[] = [];
      for (let i = writes; i < 2 * writes; i++) {
        const cold = new PagedCatalog(store, clock);
        const started = performance.now();
        await cold.patch([change(i)], []);
        coldMs.push(performance.now() - started);
      }
      rows.push(...latencyRows(section, 'publish → pages + index, rebuilder wrote last', warmMs));
      rows.push(...latencyRows(section, 'publish → pages + index, another rebuilder wrote last', coldMs));
      p50.set(size, { warm: median(warmMs), cold: median(coldMs) });

      const whole = performance.now();
      await store.put(`bench/${CATALOG_KEY}`, catalogJson(all, clock().toISOString()));
      rows.push({ section, metric: 'whole catalog rewritten per write (before pages)', value: round(performance.now() - whole), unit: 'ms' });
      const assembling = performance.now();
      await new PagedCatalog(store, clock).assemble();
      rows.push({ section, metric: 'assembly: skills.json + .br + .gz (scheduled, ≤ 1/min)', value: round(performance.now() - assembling), unit: 'ms' });
      const [plain, br] = await Promise.all([store.get(CATALOG_KEY), store.get(`${CATALOG_KEY}.br`)]);
      rows.push({ section, metric: 'skills.json', value: plain!.byteLength, unit: 'bytes' });
      rows.push({ section, metric: 'skills.json.br (stored)', value: br!.byteLength, unit: 'bytes' });
    }
    const [small, large] = [p50.get(sizes[0]!), p50.get(sizes.at(-1)!)];
    if (small && large && sizes.length > 1) {
      for (const which of ['warm', 'cold'] as const) {
        const ratio = round(large[which] / small[which], 2);
        rows.push({
          section: 'catalog',
          metric: `publish → pages + index p50 ${sizes.at(-1)! / 1000}k/${sizes[0]! / 1000}k (${which === 'warm' ? 'wrote last' : 'read back'})`,
          value: ratio,
          unit: 'ratio',
          target: '≤ 1.5',
          ok: ratio <= 1.5,
        });
      }
    }
  } finally {
    await services.stop();
  }
  return rows;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A catalog entry of a realistic size; a fractional `n` is a new slug between two seeded ones. */
function entry(n: number, version = '1.0.0'): CatalogEntry {
  const slug = `seeded-${n.toFixed(1).padStart(8, '0').replace('.', '-')}`;
  return {
    id: `01J${String(n).padStart(23, '0')}`.slice(0, 26),
    slug,
    name: `Seeded skill ${n}`,
    description: 'A seeded skill that formats, checks and explains configuration files for a team of agents.',
    category: 'developer-tools',
    author: `author-${Math.floor(n) % 997}`,
    currentVersion: version,
    paid: false,
    updatedAt: '2026-11-28T00:00:00.000Z',
    registry: `/api/registry/${slug}`,
  };
}
