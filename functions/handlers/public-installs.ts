// Lambda entry: the public install counts, rewritten on a schedule (EventBridge, every 5 minutes).
import { awsDeps } from '../platform/composition.ts';
import { refreshInstallCounts } from '../services/public-installs.ts';

const deps = awsDeps();

export const handler = () => refreshInstallCounts(deps);
