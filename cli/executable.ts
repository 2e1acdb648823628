import { runFromProcess } from './main.ts';

/** The entry point of the bundle (`dist/skillpress.mjs`): the `skillpress` command itself. */
await runFromProcess();
