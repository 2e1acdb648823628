import { installOfRecord, parseCdnLogRecord } from '#core/cdn-log';
import { clientOf } from '#core/install-analytics';
import type { InstallCounter } from '../store/downloads.ts';

/**
 * Installs from the CDN's log (docs/api.md §10.2): each record of a discovery download or bundle that
 * counts (core/cdn-log.ts) is one install of its skill, from the source `cli`, told apart by
 * its client and counted once per CDN request id. The `install-log` Lambda reads the lines from
 * CloudFront's real-time log stream; the local runtime hands over the local CDN's lines.
 */
export function countCdnLog(downloads: Pick<InstallCounter, 'add'>, lines: Iterable<string>): { counted: number; unreadable: number } {
  let counted = 0;
  let unreadable = 0;
  for (const line of lines) {
    const record = parseCdnLogRecord(line);
    if (!record) {
      unreadable += 1;
      continue;
    }
    const install = installOfRecord(record);
    if (!install) continue;
    downloads.add({
      slug: install.slug,
      source: 'cli',
      client: clientOf('discovery', install.userAgent),
      visitor: { address: install.address, userAgent: install.userAgent },
      at: install.at,
      requestId: install.requestId,
    });
    counted += 1;
  }
  return { counted, unreadable };
}
