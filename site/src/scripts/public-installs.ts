import type { InstallsDocument } from '#core/public-installs';
import { INSTALLS_KEY } from '#core/static-paths';
import { getJson } from './registry.ts';

let asked: Promise<InstallsDocument | undefined> | undefined;

/**
 * The public install counts (docs/api.md §11.8), read once per page however many of its scripts
 * show them (the cards' live counts, the search's results, a fallback page's installs row).
 * Revalidated (a 304 while it has not changed): a copy kept from an earlier page may be older
 * than this one. Undefined when the file is missing or could not be read: the counts are extra.
 */
export function publicInstalls(): Promise<InstallsDocument | undefined> {
  asked ??= getJson<InstallsDocument>(`/${INSTALLS_KEY}`, 'no-cache').catch(() => undefined);
  return asked;
}
