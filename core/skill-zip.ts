import { Zip, ZipDeflate } from 'fflate';
import { byFilename, type FileBytes } from './bundle.ts';

/** ZIP's "made by" system for Unix, and the modes of a regular file (type bits and permissions). */
const UNIX = 3;
const REGULAR = 0o100644;
const REGULAR_EXECUTABLE = 0o100755;

/**
 * A skill version as the ZIP that ClawHub clients download (`GET /api/v1/download`): the
 * version's files at the archive root, sorted by name, deflated, each with its Unix mode (0755
 * for an executable file, 0644 for the rest), as `unzip` restores them. Every entry carries the same
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
    // Made on Unix, with a regular file's type and permission bits in the external attributes' high half.
    entry.os = UNIX;
    entry.attrs = (file.executable ? REGULAR_EXECUTABLE : REGULAR) * 0x10000;
    zip.add(entry);
    entry.push(file.bytes, true);
  }
  // Deflating without workers calls back synchronously: the chunks are all here once end() returns.
  zip.end();
  return Buffer.concat(chunks);
}
