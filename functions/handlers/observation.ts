// Lambda entry: the end of a version's run in the sandbox, from the observation state machine (docs/scanning.md, "Behaviour").
import { awsDeps } from '../platform/composition.ts';
import type { Observation } from '#core/behaviour/observation';
import { recordObservation } from '../services/behaviour.ts';

const deps = awsDeps();

/** Records the observation of `slug@version` the sandbox's task handed back: the version is cleared or refused, and the rebuild follows. */
export const handler = (event: { slug: string; version: string; observation: Observation }) => recordObservation(deps, event);
