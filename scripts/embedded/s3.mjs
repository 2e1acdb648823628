// Child process: the embedded S3 (s3rver), run with --openssl-legacy-provider, which its
// pagination needs on Node 20. Reports its port over IPC and exits when the parent goes away.
import S3rver from 's3rver';

const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.EMBEDDED_PATH });
const { port } = await server.run();
process.send?.({ port });
process.on('disconnect', () => server.close(() => process.exit(0)));
