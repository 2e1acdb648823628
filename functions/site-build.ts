// Lambda entry: the scheduled flush of deferred site builds (EventBridge, every 5 minutes).
import { configFromEnv } from './config.ts';
import { createDeps } from './deps.ts';
import { flushPendingSiteBuild } from './site-build-trigger.ts';

const deps = createDeps(configFromEnv());

export const handler = () => flushPendingSiteBuild(deps);
