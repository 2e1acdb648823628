import { limits } from '#core/limits';
import type { Config } from '../platform/config.ts';
import type { LimitedAction, Window } from '../store/rate-limit.ts';

/**
 * The rolling windows of the rate limits (docs/api.md §6.4), per account: new skills, new
 * versions and checks of files per minute, reports per hour, organisations per day. The limits come from the configuration, which tests
 * and benchmarks raise; the windows' lengths are fixed.
 */
export function rateWindow(config: Pick<Config, 'publishLimit' | 'versionLimit' | 'reportLimit' | 'orgLimit' | 'checkLimit'>, action: LimitedAction): Window {
  switch (action) {
    case 'publish':
      return { action, limit: config.publishLimit, windowMs: limits.publishWindowSeconds * 1000 };
    case 'version':
      return { action, limit: config.versionLimit, windowMs: limits.versionWindowSeconds * 1000 };
    case 'report':
      return { action, limit: config.reportLimit, windowMs: limits.reportWindowSeconds * 1000 };
    case 'org':
      return { action, limit: config.orgLimit, windowMs: limits.orgWindowSeconds * 1000 };
    case 'check':
      return { action, limit: config.checkLimit, windowMs: limits.checkWindowSeconds * 1000 };
  }
}
