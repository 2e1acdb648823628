import { runFromProcess } from './main.ts';

/** The entry point of the bundle (`dist/cli.mjs`, which the package's bin loads): the `skillpress` command itself. */
await runFromProcess();
