// Child process: the embedded DynamoDB (dynalite). Reports its port over IPC and exits when the
// parent goes away, so no server outlives the runtime or test run that started it.
import dynalite from 'dynalite';

const path = process.env.EMBEDDED_PATH || undefined;
const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
