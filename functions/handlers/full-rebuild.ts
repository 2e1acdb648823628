// Lambda entry: the end of the daily full rebuild, once its state machine's shards are done
// ({ run, shards }: the shared indexes from their outputs, functions/rebuild/fan-out.ts); or, with
// no run named, the whole full rebuild in this one invocation (fullRebuild: small tables, by hand).
import { awsDeps } from '../platform/composition.ts';
import { finishShardedRebuild } from '../rebuild/fan-out.ts';
import { fullRebuild } from '../rebuild/full-rebuild.ts';

const deps = awsDeps();

export const handler = (event: { run?: string; shards?: number } | undefined) =>
  event?.run === undefined ? fullRebuild(deps) : finishShardedRebuild(deps, event.run, Number(event.shards));
