import type { Tag } from '../operation.ts';

/** The OpenAPI tag of ClawHub's API, whose reads and publishes are declared (and served) apart. */
export const clawhubTag: Tag = {
  name: 'ClawHub',
  description:
    "ClawHub's registry API, so the clawhub CLI (0.23.3, and clawdhub 0.3.0) can search, explore, inspect, install, update, publish and sync here: " +
    'its paths and shapes, times in epoch milliseconds, errors as ClawHub words them (text/plain, the code in X-Error-Code). Lists and searches hold the free skills (docs/api.md §14).',
};
