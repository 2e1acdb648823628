import { parentPort } from 'node:worker_threads';
import { ruleEngine } from '#functions/services/scanning';
import type { FromScanThread, ToScanThread } from './scan-thread.ts';

/** The scan thread's entry (see scan-thread.ts): one scan at a time, in the order they came. */
const port = parentPort!;
let queue = Promise.resolve();
port.on('message', ({ id, files, options }: ToScanThread) => {
  queue = queue.then(async () => {
    let reply: FromScanThread;
    try {
      reply = { id, result: await ruleEngine(files, options) };
    } catch (error) {
      reply = { id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
});
