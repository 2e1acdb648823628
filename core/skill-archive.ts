import { gzipSync } from 'node:zlib';
import { Header, Pax } from 'tar';
import { byFilename, type FileBytes } from './bundle.ts';

/**
 * A skill version as a deterministic `.tar.gz` (SKILL.md at the archive root), for the Agent
 * Skills discovery index. Executable files get mode 0755, the others 0644. Fixed mtime, owner 0/0, sorted paths and gzip without a timestamp make
 * the bytes — and so the published digest — identical on every rebuild.
 */
export function skillArchive(files: FileBytes[]): Uint8Array {
  const epoch = new Date(0);
  const blocks: Buffer[] = [];
  for (const file of [...files].sort(byFilename)) {
    const fields = {
      path: file.filename,
      mode: file.executable ? 0o755 : 0o644,
      uid: 0,
      gid: 0,
      uname: '',
      gname: '',
      size: file.bytes.byteLength,
      mtime: epoch,
      type: 'File' as const,
    };
    const header = Buffer.alloc(512);
    const needsPax = new Header(fields).encode(header);
    // Long or non-ASCII paths travel in a PAX extended header ahead of the entry.
    if (needsPax) blocks.push(new Pax({ path: file.filename, mtime: epoch }).encode());
    blocks.push(header, Buffer.from(file.bytes), Buffer.alloc((512 - (file.bytes.byteLength % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks), { level: 9 });
}
