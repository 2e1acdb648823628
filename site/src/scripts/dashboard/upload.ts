import { unzipSync } from 'fflate';
import type { WireFile } from '#core/bundle';
import { describeEvidence, type Effects } from '#core/effects/effect';
import { minorDigits } from '#core/price';
import type { Skill } from '#core/schemas';
import type { SkillCheck } from '#core/skill-check';
import { formatBytes } from '../../lib/format.ts';
import { type PickedFile, uploadedFolder } from '../../lib/uploaded-folder.ts';
import { fill, renderList } from '../fill.ts';
import { api, messageOf } from './api.ts';
import type { MyOrg } from './orgs.ts';

/**
 * The web upload (docs/api.md §7.4): a skill folder or a `.zip`, dropped or picked, is checked
 * by `POST /api/skills/check` before anything is stored, and its preview shows what the check
 * answered: the listing, each conformance problem against its line, the scan's verdict and
 * findings, and the effects read in the text. Then the author chooses the owner, visibility,
 * price or the version (a bump suggested) and publishes through the API the CLI uses: a new
 * skill, or a new version of their skill of that slug.
 */
export function wireUpload(root: HTMLElement, context: { orgs(): readonly MyOrg[]; published(): Promise<void> }): { refresh(): void } {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => root.querySelector<T>(`[data-role="${role}"]`)!;
  const drop = part('upload-drop');
  const status = part('upload-status');
  const preview = part('upload-preview');
  const form = part<HTMLFormElement>('upload-form');
  const field = <T extends HTMLElement = HTMLInputElement>(name: string) => form.elements.namedItem(name) as unknown as T;
  const owner = field<HTMLSelectElement>('owner');
  const visibility = field<HTMLSelectElement>('visibility');
  const paid = field('paid');
  const publishButton = form.querySelector<HTMLButtonElement>('button[type=submit]')!;
  let files: WireFile[] = [];
  let checked: SkillCheck | undefined;

  /** The owners one may publish into: oneself, and the organisations one maintains or owns. */
  const refresh = () => {
    const choice = owner.value;
    const into = context.orgs().filter((org) => org.role === 'owner' || org.role === 'maintainer');
    owner.replaceChildren(new Option('you', ''), ...into.map((org) => new Option(`${org.name} (${org.login})`, org.login)));
    owner.value = into.some((org) => org.login === choice) ? choice : '';
  };

  /** Reads what was dropped or picked, then checks it. */
  const take = async (read: () => Promise<PickedFile[]>) => {
    status.textContent = 'Reading…';
    preview.hidden = true;
    let picked: PickedFile[];
    try {
      picked = await read();
    } catch {
      status.textContent = 'That could not be read: drop or pick a skill folder, or a .zip of one.';
      return;
    }
    const folder = uploadedFolder(picked);
    if ('problem' in folder) {
      status.textContent = folder.problem;
      return;
    }
    files = folder.files;
    await check();
  };

  /** Asks the API what publishing the files would meet, for the owner and price chosen, and shows it. */
  const check = async () => {
    if (files.length === 0) return;
    status.textContent = 'Checking…';
    try {
      checked = await api<SkillCheck>('POST', '/api/skills/check', {
        files,
        paid: paid.checked,
        ...(owner.value ? { owner: owner.value } : {}),
      });
    } catch (error) {
      checked = undefined;
      preview.hidden = true;
      status.textContent = messageOf(error);
      return;
    }
    show(checked);
  };

  const show = (answer: SkillCheck) => {
    const target = answer.target;
    const refused = answer.scan.verdict === 'malicious';
    const ready = target !== undefined && answer.issues.length === 0 && !refused;
    fill(preview, {
      name: answer.listing.name ?? '(no name)',
      description: answer.listing.description ?? '',
      slug: answer.listing.slug ?? '—',
      category: answer.listing.category ?? 'general',
      makes: !target
        ? 'nothing yet: fix the problems below'
        : target.kind === 'skill'
          ? 'a new skill at 1.0.0'
          : `a new version of your skill ${answer.listing.slug} (now ${target.currentVersion})`,
      verdict: answer.scan.verdict,
      verdictClass: `badge ${answer.scan.verdict}`,
      fileCount: `${files.length} ${files.length === 1 ? 'file' : 'files'}`,
      noIssues: answer.issues.length === 0,
      noFindings: answer.scan.findings.length === 0,
      noEffects: effectRows(answer.effects).length === 0,
      newSkill: target?.kind === 'skill',
      newVersion: target?.kind === 'version',
    });
    renderList(
      preview,
      'upload-issues',
      answer.issues.map((issue) => ({ location: issue.line ? `${issue.file}:${issue.line}` : issue.file, message: issue.message })),
    );
    renderList(
      preview,
      'upload-findings',
      answer.scan.findings.map((finding) => ({
        severity: finding.severity,
        severityClass: `badge severity-${finding.severity}`,
        rule: finding.rule,
        location: `${finding.file}:${finding.line}`,
        message: finding.message,
      })),
    );
    renderList(preview, 'upload-effects', effectRows(answer.effects));
    renderList(
      preview,
      'upload-files',
      files.map((file) => ({ filename: file.filename, size: formatBytes(wireSize(file)) })),
    );
    if (target?.kind === 'version') {
      field('version').value = target.suggestedVersion;
      paid.checked = target.paid;
    }
    paid.disabled = target?.kind === 'version';
    showPrice();
    publishButton.disabled = !ready;
    preview.hidden = false;
    status.textContent = refused
      ? 'The scan refuses these files (a critical finding): publishing them would be refused. Fix the finding, or appeal with skillpress publish --appeal.'
      : ready
        ? 'Checked: nothing is stored yet. Choose how to publish it below.'
        : 'Checked: fix the problems below, then drop the folder again.';
  };

  /** The price shows for a new paid skill; a private skill is an organisation's only. */
  const showPrice = () => {
    const newSkill = checked?.target?.kind === 'skill';
    part('upload-price').hidden = !(newSkill && paid.checked);
    visibility.disabled = !owner.value;
    if (!owner.value) visibility.value = 'public';
  };

  const publish = async (): Promise<string> => {
    const target = checked?.target;
    if (!checked || !target) return 'Drop or pick a skill folder first.';
    const { listing } = checked;
    const changelog = field<HTMLTextAreaElement>('changelog').value.trim();
    const common = { files, dependencies: listing.dependencies, ...(changelog ? { changelog } : {}) };
    if (target.kind === 'version') {
      const version = field('version').value.trim();
      await api('POST', `/api/skills/${encodeURIComponent(target.skillId)}/versions`, { version, ...common });
      return `Published ${listing.slug}@${version}.`;
    }
    const skill = await api<Skill>('POST', '/api/skills', {
      name: listing.name,
      description: listing.description,
      ...(listing.category ? { category: listing.category } : {}),
      slug: listing.slug,
      paid: paid.checked,
      visibility: visibility.value,
      ...(owner.value ? { owner: owner.value } : {}),
      ...(paid.checked ? { price: price() } : {}),
      ...common,
    });
    return `Published ${skill.slug}@${skill.currentVersion}.`;
  };

  /** The price as written (9.99) in the currency's minor units (999). */
  const price = () => {
    const currency = field('currency').value.trim().toUpperCase();
    return { amount: Math.round(Number(field('amount').value) * 10 ** minorDigits(currency)), currency };
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    publishButton.disabled = true;
    try {
      status.textContent = await publish();
      preview.hidden = true;
      files = [];
      checked = undefined;
      await context.published();
    } catch (error) {
      status.textContent = messageOf(error);
      publishButton.disabled = false;
    }
    status.tabIndex = -1;
    status.focus();
  });
  owner.addEventListener('change', () => {
    showPrice();
    void check();
  });
  paid.addEventListener('change', () => {
    showPrice();
    void check();
  });

  const folderInput = part<HTMLInputElement>('upload-folder');
  folderInput.addEventListener('change', () => {
    const picked = [...(folderInput.files ?? [])];
    folderInput.value = '';
    void take(() => Promise.all(picked.map(async (file) => ({ path: file.webkitRelativePath || file.name, bytes: await bytesOf(file) }))));
  });
  const zipInput = part<HTMLInputElement>('upload-zip');
  zipInput.addEventListener('change', () => {
    const [zip] = zipInput.files ?? [];
    zipInput.value = '';
    if (zip) void take(async () => unzipped(await bytesOf(zip)));
  });

  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('dragging');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('dragging');
    const transfer = event.dataTransfer;
    if (transfer) void take(() => dropped(transfer));
  });

  return { refresh };
}

/** The effects as rows: what kind, which class, on what, and where the text says so. */
function effectRows(effects: Effects): { kind: string; what: string; where: string }[] {
  const kinds = ['reads', 'writes', 'network', 'executes', 'asks'] as const;
  return kinds.flatMap((kind) =>
    effects[kind].map((effect) => ({ kind, what: `${effect.class}: ${effect.target}`, where: describeEvidence(effect.evidence) })),
  );
}

/** Bytes a wire file holds, for the preview's list. */
function wireSize(file: WireFile): number {
  return file.encoding === 'base64' ? Math.floor((file.content.length * 3) / 4) - (file.content.match(/=*$/)?.[0].length ?? 0) : new Blob([file.content]).size;
}

async function bytesOf(file: Blob): Promise<Uint8Array> {
  return new Uint8Array(await file.arrayBuffer());
}

function unzipped(bytes: Uint8Array): PickedFile[] {
  return Object.entries(unzipSync(bytes)).map(([path, content]) => ({ path, bytes: content }));
}

/**
 * What a drop holds: a folder (read through its entries, as the browser lends them only during
 * the drop), a `.zip`, or loose files. A drop made by a script has no entries: its files are read.
 */
async function dropped(transfer: DataTransfer): Promise<PickedFile[]> {
  const entries = [...transfer.items].map((item) => item.webkitGetAsEntry()).filter((entry): entry is FileSystemEntry => entry !== null);
  const files = [...transfer.files];
  if (entries.length === 0 || entries.every((entry) => entry.isFile)) {
    const zip = files.length === 1 && files[0]!.name.toLowerCase().endsWith('.zip') ? files[0] : undefined;
    if (zip) return unzipped(await bytesOf(zip));
    return Promise.all(files.map(async (file) => ({ path: file.name, bytes: await bytesOf(file) })));
  }
  return (await Promise.all(entries.map((entry) => entryFiles(entry)))).flat();
}

async function entryFiles(entry: FileSystemEntry): Promise<PickedFile[]> {
  const path = entry.fullPath.replace(/^\//, '');
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    return [{ path, bytes: await bytesOf(file) }];
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const children: FileSystemEntry[] = [];
  // A directory reader answers in batches, and an empty batch at the end.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    children.push(...batch);
  }
  return (await Promise.all(children.map((child) => entryFiles(child)))).flat();
}
