// Child process: the embedded DynamoDB (dynalite). Reports its port over IPC and exits when the
// parent goes away, so no server outlives the runtime or test run that started it.
import dynalite from 'dynalite';

const path = process.env.EMBEDDED_PATH || undefined;
const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
// Ctrl-C in a terminal signals the whole process group. The parent's stop still needs this
// server (it writes the last install counts and rebuilds), and a write must not be cut short:
// so signals are ignored here, and the process exits once the parent lets go, as above.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
