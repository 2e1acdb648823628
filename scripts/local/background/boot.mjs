// Worker threads do not inherit the TypeScript loader on Node 20: register it, then load the
// TypeScript entry named by the thread that started this one.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
