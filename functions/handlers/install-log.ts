// Lambda entry: installs from CloudFront's real-time log of discovery downloads (a Kinesis stream).
import { awsDeps } from '../platform/composition.ts';
import { countCdnLog } from '../services/install-log.ts';

const deps = awsDeps();

interface KinesisEvent {
  Records: { kinesis: { data: string; sequenceNumber: string } }[];
}

/**
 * Counts the batch's installs and writes them before returning. If they cannot be written the
 * invocation fails and Lambda retries the batch: records already counted carry their CDN request
 * id, marked when counted, so a retry counts each install once.
 */
export const handler = async (event: KinesisEvent) => {
  const lines = event.Records.flatMap((record) => Buffer.from(record.kinesis.data, 'base64').toString('utf8').split('\n').filter(Boolean));
  const { counted, unreadable } = countCdnLog(deps.downloads, lines);
  if (unreadable > 0) deps.log.warn('CDN log records not understood', { unreadable, records: lines.length });
  await deps.downloads.flush();
  deps.log.info('CDN log read', { records: lines.length, installs: counted });
};
