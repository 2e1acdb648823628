import type { VersionsDocument } from '#core/registry-document';
import type { Skill } from '#core/schemas';
import { formatTimestamp } from '../../lib/format.ts';
import { fill, renderList } from '../fill.ts';
import { fetchVersions } from '../registry.ts';
import { api, confirmed, messageOf, writeRunner } from './api.ts';

/**
 * The selected skill's versions with a Yank (or Undo yank) button each, and its deprecation: what
 * an author uses to correct the record (docs/api.md §7.5). The versions come from the registry's
 * versions document; after a change the rows follow the API's answer at once, as the static
 * files catch up only after the rebuild.
 */
interface VersionState {
  version: string;
  publishedAt: string;
  yanked?: boolean;
  yankReason?: string;
}

interface YankAnswer {
  version: string;
  yanked: boolean;
  yankReason?: string;
  currentVersion: string;
}

export function wireLifecycle(section: HTMLElement, changed: (skill: Skill) => void): { open(skill: Skill): Promise<void> } {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => section.querySelector<T>(`[data-role="${role}"]`)!;
  const status = part('lifecycle-status');
  let skill: Skill | undefined;
  let versions: VersionState[] = [];

  const show = () => {
    if (!skill) return;
    const deprecated = skill.deprecated ?? '';
    fill(part('deprecated-note'), { deprecated });
    part('deprecated-note').hidden = !deprecated;
    part('deprecate-form').hidden = Boolean(deprecated);
    part('undeprecate').hidden = !deprecated;
    const current = skill.currentVersion;
    renderList(
      section,
      'lifecycle-versions',
      versions.map((v) => ({
        version: v.version,
        published: formatTimestamp(v.publishedAt),
        state: v.yanked ? `yanked${v.yankReason ? `: ${v.yankReason}` : ''}` : v.version === current ? 'current' : '',
        action: v.yanked ? 'Undo yank' : 'Yank',
        kind: v.yanked ? 'small' : 'small danger',
      })),
    );
  };

  const open = async (next: Skill) => {
    skill = next;
    versions = [];
    status.textContent = '';
    show();
    try {
      // A private skill has no static files: its members read its versions through the API.
      const doc =
        next.visibility === 'private'
          ? await api<VersionsDocument>('GET', `/api/me/registry/${encodeURIComponent(next.slug)}/versions`)
          : await fetchVersions(next.slug);
      if (skill !== next) return;
      versions = doc?.versions ?? [];
      show();
    } catch (error) {
      status.textContent = messageOf(error);
    }
  };

  const act = writeRunner(status, () => skill);

  section.querySelector('[data-list=lifecycle-versions]')!.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action=toggle-yank]');
    if (!button) return;
    const version = versions.find((v) => v.version === button.value);
    if (!version || (!version.yanked && !confirmed(button, 'yank'))) return;
    void act(button, async (target) => {
      const path = `/api/skills/${encodeURIComponent(target.id)}/versions/${encodeURIComponent(version.version)}/yank`;
      const reason = part<HTMLInputElement>('yank-reason').value.trim();
      const answer = version.yanked ? await api<YankAnswer>('DELETE', path) : await api<YankAnswer>('POST', path, reason ? { reason } : {});
      version.yanked = answer.yanked;
      version.yankReason = answer.yankReason;
      skill = { ...target, currentVersion: answer.currentVersion };
      changed(skill);
      show();
      return answer.yanked
        ? `${version.version} is yanked; ${answer.currentVersion} is the current version.`
        : `${version.version} is no longer yanked; ${answer.currentVersion} is the current version.`;
    });
  });

  part<HTMLFormElement>('deprecate-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const message = String(new FormData(form).get('message') ?? '').trim();
    void act(form.querySelector('button'), async (target) => {
      skill = await api<Skill>('POST', `/api/skills/${encodeURIComponent(target.id)}/deprecate`, { message });
      changed(skill);
      form.reset();
      show();
      return `${skill.name} is deprecated; its page and the CLI show your message.`;
    });
  });

  part('undeprecate')
    .querySelector('button')!
    .addEventListener('click', (event) => {
      void act(event.currentTarget as HTMLButtonElement, async (target) => {
        skill = await api<Skill>('DELETE', `/api/skills/${encodeURIComponent(target.id)}/deprecate`);
        changed(skill);
        show();
        return `${skill.name} is no longer deprecated.`;
      });
    });

  return { open };
}
