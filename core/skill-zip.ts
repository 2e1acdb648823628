import { Zip, ZipDeflate } from 'fflate';
import { byFilename, type FileBytes } from './bundle.ts';

/**
 * A skill version as the ZIP that ClawHub clients download (`GET /api/v1/download`): the
 * version's files at the archive root, sorted by name, deflated. Every entry carries the same
 * fixed time, midnight of 1 January 2000 in local time, so the bytes do not depend on when (or
 * in which time zone) they were made: ZIP stores local times, and 1980 is the earliest it can.
 *
 * fflate's streaming writer, not `zipSync`: that one takes the files as an object, and a file
 * named `__proto__` (a valid name) would set the object's prototype instead of adding an entry.
 */
export function skillZip(files: FileBytes[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  for (const file of [...files].sort(byFilename)) {
    const entry = new ZipDeflate(file.filename, { level: 6 });
    entry.mtime = new Date(2000, 0, 1);
    zip.add(entry);
    entry.push(file.bytes, true);
  }
  // Deflating without workers calls back synchronously: the chunks are all here once end() returns.
  zip.end();
  return Buffer.concat(chunks);
}
