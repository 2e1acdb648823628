// Lambda entry: the scheduled flush of deferred site builds (EventBridge, every 5 minutes).
import { awsDeps } from '../platform/composition.ts';
import { flushPendingSiteBuild } from '../services/site-build.ts';

const deps = awsDeps();

export const handler = () => flushPendingSiteBuild(deps);
