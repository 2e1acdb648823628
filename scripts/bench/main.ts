import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { benchBundles } from './bundles.ts';
import { benchCatalog } from './catalog.ts';
import { benchDeliver } from './deliver.ts';
import { benchInstall } from './install.ts';
import { benchPublish } from './publish.ts';
import { benchRebuild, benchRebuildShards } from './rebuild.ts';
import { benchScan } from './scan.ts';
import { benchSearch } from './search.ts';
import { benchSite } from './site.ts';
import { benchVerdaccio } from './verdaccio.ts';
import { printTable, type Row } from './table.ts';
import { benchVisible } from './visible.ts';

/**
 * `npm run bench [section ...]`: runs the benchmark sections on this machine against the local
 * stack and prints one table. Figures go to bench/results/latest.json too.
 */
const sections: Record<string, () => Promise<Row[]>> = {
  publish: benchPublish,
  deliver: benchDeliver,
  rebuild: () => benchRebuild(),
  catalog: () => benchCatalog(),
  shards: () => benchRebuildShards(),
  visible: () => benchVisible(),
  bundles: benchBundles,
  verdaccio: () => benchVerdaccio(),
  site: () => benchSite(),
  scan: benchScan,
  install: benchInstall,
  search: benchSearch,
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const rows: Row[] = [];
for (const [name, run] of Object.entries(sections)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  rows.push(...(await run()));
}
printTable(rows);
// Running some sections keeps the last figures of the others, so the file always has them all.
const latest = 'bench/results/latest.json';
const ran = new Set(rows.map((r) => r.section));
const kept = existsSync(latest) ? (JSON.parse(readFileSync(latest, 'utf8')) as { rows: Row[] }).rows.filter((r) => !ran.has(r.section)) : [];
mkdirSync('bench/results', { recursive: true });
writeFileSync(latest, `${JSON.stringify({ when: new Date().toISOString(), rows: [...kept, ...rows] }, null, 2)}\n`);
process.exit(0);
