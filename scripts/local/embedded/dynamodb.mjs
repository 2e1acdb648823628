// Child process: the embedded DynamoDB (dynalite). Reports its port over IPC and exits when the
// parent goes away, so no server outlives the runtime or test run that started it.
import { createRequire } from 'node:module';
import dynalite from 'dynalite';

// One correction, for the cost of a request. On disk dynalite keeps its items in LevelDB
// (classic-level), whose reads each went through libuv's thread pool and back: a hand-off to a
// worker thread and a wake-up of this one for a lookup that takes microseconds. dynalite reads
// several times per request (the table's description, then every item a read, condition or
// update touches), so on this 2-core machine a BatchGetItem of two items took 3.9–4.3 ms and a
// GetItem 3.1–3.5 ms, against 2.6–2.9 ms when the lookups run on the event loop (measured A/B
// from the SDK, quiet machine). classic-level has a synchronous read for exactly this; its
// answers are the same, as they come from the same database. Writes still go through the pool.
const { Level } = createRequire(createRequire(import.meta.url).resolve('dynalite'))('level');
Level.prototype._get = async function _get(key, options) {
  return this._getSync(key, options);
};

const path = process.env.EMBEDDED_PATH || undefined;
const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
// Ctrl-C in a terminal signals the whole process group. The parent's stop still needs this
// server (it writes the last install counts and rebuilds), and a write must not be cut short:
// so signals are ignored here, and the process exits once the parent lets go, as above.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
