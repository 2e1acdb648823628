// Lambda entry: the scheduled site builds (EventBridge), see runScheduledSiteBuild.
import { configFromEnv } from './config.ts';
import { createDeps } from './deps.ts';
import { runScheduledSiteBuild } from './site-build-trigger.ts';

const deps = createDeps(configFromEnv());

export const handler = (event: unknown) => runScheduledSiteBuild(deps, event);
