import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How `npm start` knows whether its static files can be trusted. Locally the rebuild after a
 * committed write runs in-process (dynalite has no streams), so a crash between a write and its
 * rebuild loses the rebuild: the data is in DynamoDB, the registry JSON does not show it. A
 * clean stop waits for every pending rebuild and then leaves a marker in DATA_DIR; a start that
 * finds no marker runs the full rebuild (the repair path) before it takes requests.
 */
const MARKER = 'stopped-cleanly';

/**
 * How the last run over `dataDir` ended: there was none (a new store), it stopped cleanly, or
 * it did not. Removes the marker, so that a crash of this run is noticed by the next start.
 */
export function takeLastStop(dataDir: string): 'none' | 'clean' | 'unclean' {
  const marker = join(dataDir, MARKER);
  const fresh = !existsSync(join(dataDir, 'dynamodb'));
  const clean = existsSync(marker);
  rmSync(marker, { force: true });
  return fresh ? 'none' : clean ? 'clean' : 'unclean';
}

/** Records that every committed write has been rebuilt and the store closed. */
export function markCleanStop(dataDir: string): void {
  writeFileSync(join(dataDir, MARKER), `${new Date().toISOString()}\n`);
}
