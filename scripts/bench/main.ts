import { mkdirSync, writeFileSync } from 'node:fs';
import { benchBundles } from './bundles.ts';
import { benchPublish } from './publish.ts';
import { printTable, type Row } from './table.ts';

/**
 * `npm run bench [section ...]`: runs the benchmark sections on this machine against the local
 * stack and prints one table. Figures go to bench/results/latest.json too.
 */
const sections: Record<string, () => Promise<Row[]>> = {
  publish: benchPublish,
  bundles: benchBundles,
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const rows: Row[] = [];
for (const [name, run] of Object.entries(sections)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  rows.push(...(await run()));
}
printTable(rows);
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/latest.json', JSON.stringify({ when: new Date().toISOString(), rows }, null, 2) + '\n');
process.exit(0);
