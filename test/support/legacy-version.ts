import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { bundleIntegrity, decodeFile, fileEntries } from '#core/bundle';
import { putBlobs } from '#functions/content/blobs';
import type { Deps } from '#functions/platform/composition';
import { getVersion, versionRecord } from '#functions/store/skills';

/**
 * Turns a published version into one from before the conformance check, written straight into
 * the store as such a store holds it: its only file a `SKILL.md` with `content` (which the API
 * would now refuse, or not), and no recorded SKILL.md description.
 */
export async function rewriteAsLegacy(deps: Pick<Deps, 'db' | 'blobs'>, skillId: string, version: string, content: string): Promise<void> {
  const file = decodeFile({ filename: 'SKILL.md', content })!;
  await putBlobs(deps.blobs, [file]);
  const item = await getVersion(deps.db, skillId, version);
  if (!item) throw new Error(`skill ${skillId} has no version ${version}`);
  const { frontMatterDescription: _recorded, ...legacy } = item;
  const files = fileEntries([file]).map((entry) => ({ ...entry, encoding: 'utf8' as const }));
  await deps.db.doc.send(new PutCommand({ TableName: deps.db.table, Item: versionRecord({ ...legacy, files, integrity: bundleIntegrity([file]) }) }));
}
