// Lambda entry: the scheduled full rebuild (EventBridge, daily), see fullRebuild.
import { awsDeps } from '../platform/composition.ts';
import { fullRebuild } from '../rebuild/full-rebuild.ts';

const deps = awsDeps();

export const handler = () => fullRebuild(deps);
