// Lambda entry: one shard of the daily full rebuild, from the full rebuild's state machine (functions/rebuild/fan-out.ts).
import { awsDeps } from '../platform/composition.ts';
import { rebuildShardTask, type ShardTask } from '../rebuild/fan-out.ts';

const deps = awsDeps();

export const handler = (task: ShardTask) => rebuildShardTask(deps, task);
