import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { FailingRebuild } from '#core/schemas';
import { createDeps } from '#functions/platform/composition';
import { createLogger, type Level } from '#functions/platform/log';
import type { FromWorker, Request, ToWorker, WorkerSetup } from './thread.ts';
import { backgroundWork } from './work.ts';

/** The background thread's entry (see thread.ts): rebuilds and install-count writes. */

const { config, logLevel, rebuilder, maxRebuildBackoffMs } = (workerData as { setup: WorkerSetup }).setup;

// On AWS the rebuild runs on the stream Lambda's own machine and takes no CPU from requests;
// here it shares two cores with them, so it yields: on Linux a priority set with no pid
// applies to the calling thread only, this one. (Refused elsewhere: then it runs as before.)
/** Nice 10 against the requests' 0: about a tenth of a contended core, all of an idle one. */
const BACKGROUND_NICE = 10;
try {
  setPriority(BACKGROUND_NICE);
} catch {
  // keeps the default priority
}
const port = parentPort!;
const send = (message: FromWorker) => port.postMessage(message);

const deps = createDeps(config, { log: createLogger(logLevel as Level | 'silent') });
deps.staticStore.onWrite((key, body) => send({ kind: 'wrote', key, body }));
const events = { rebuilt: () => send({ kind: 'rebuilt' }), failingChanged: (failing: FailingRebuild[]) => send({ kind: 'failing', failing }) };
const work = backgroundWork(deps, events, rebuilder, maxRebuildBackoffMs);

const requests: Record<Request, () => Promise<unknown>> = {
  idle: () => work.idle(),
  written: () => deps.downloads.written(),
  flush: () => deps.downloads.flush(),
  rebuildAll: () => work.rebuildAll(),
  installs: () => work.publishInstallCounts(),
  close: async () => {
    await work.close();
    deps.s3.destroy();
    deps.db.doc.destroy();
  },
};

port.on('message', (message: ToWorker) => {
  switch (message.kind) {
    case 'changed':
      work.changed(message.ids);
      return;
    case 'blob':
      deps.blobs.cache?.remember(message.sha256, message.bytes);
      return;
    case 'counts':
      for (const event of message.counts) deps.downloads.add(event);
      return;
    default:
      requests[message.kind]().then(
        (value) => send({ kind: 'done', id: message.id, value }),
        (error: unknown) => send({ kind: 'done', id: message.id, error: (error as Error).message ?? String(error) }),
      );
  }
});
