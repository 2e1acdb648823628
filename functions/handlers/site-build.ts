// Lambda entry: the scheduled flush of deferred site builds (EventBridge, every 5 minutes).
import { configFromEnv } from '../platform/config.ts';
import { createDeps } from '../platform/composition.ts';
import { flushPendingSiteBuild } from '../services/site-build.ts';

const deps = createDeps(configFromEnv());

export const handler = () => flushPendingSiteBuild(deps);
