// Lambda entry: the scheduled full rebuild (EventBridge, daily), see fullRebuild.
import { configFromEnv } from '../platform/config.ts';
import { createDeps } from '../platform/composition.ts';
import { fullRebuild } from '../rebuild/full-rebuild.ts';

const deps = createDeps(configFromEnv());

export const handler = () => fullRebuild(deps);
