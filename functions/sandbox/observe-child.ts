import { observeVersion } from './observe.ts';

/**
 * The local observer's child process (scripts/local/observer.ts): reads a version's
 * files as JSON on stdin (`[{filename, base64, executable}]`), runs them through
 * {@link observeVersion}, and writes the observation as JSON on stdout. A process of its own so
 * the server's event loop never carries a run, and a run that crashes takes only itself down.
 */
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const sent = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { filename: string; base64: string; executable?: boolean }[];
const observation = await observeVersion(
  sent.map((f) => ({ filename: f.filename, bytes: Buffer.from(f.base64, 'base64'), executable: f.executable === true })),
);
process.stdout.write(JSON.stringify(observation));
