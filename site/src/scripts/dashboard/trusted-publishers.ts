import type { Skill } from '#core/schemas';
import { formatTimestamp } from '../../lib/format.ts';
import { renderList } from '../fill.ts';
import { api, confirmed, messageOf, writeRunner } from './api.ts';

/**
 * The selected skill's trusted publishers (docs/api.md §7.14): the GitHub workflows that may
 * publish its versions with their OIDC token instead of a key. Its owning side (author, owners,
 * maintainers) adds and removes them here.
 */
interface Publisher {
  id: string;
  repository: string;
  workflow: string;
  environment?: string;
  createdAt: string;
  createdBy: string;
  /** False while it does not count: its adder may no longer publish the skill, or it changed owner. */
  active: boolean;
}

export function wireTrustedPublishers(section: HTMLElement): { open(skill: Skill): Promise<void> } {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => section.querySelector<T>(`[data-role="${role}"]`)!;
  const status = part('publishers-status');
  let skill: Skill | undefined;
  let publishers: Publisher[] = [];

  const show = () => {
    renderList(
      section,
      'publishers',
      publishers.map((p) => ({
        id: p.id,
        repository: p.repository,
        workflow: `.github/workflows/${p.workflow}`,
        environment: p.environment ?? 'any',
        added: `${formatTimestamp(p.createdAt)} by ${p.createdBy}${p.active ? '' : ' (suspended: add it again to confirm it)'}`,
      })),
    );
    part('no-publishers').hidden = publishers.length > 0;
  };

  const path = (target: Skill) => `/api/skills/${encodeURIComponent(target.id)}/trusted-publishers`;

  const open = async (next: Skill) => {
    skill = next;
    publishers = [];
    status.textContent = '';
    show();
    try {
      const answer = await api<{ publishers: Publisher[] }>('GET', path(next));
      if (skill !== next) return;
      publishers = answer.publishers;
      show();
    } catch (error) {
      status.textContent = messageOf(error);
    }
  };

  const act = writeRunner(status, () => skill);

  part<HTMLFormElement>('publisher-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const environment = String(data.get('environment') ?? '').trim();
    const body = {
      provider: 'github',
      repository: String(data.get('repository') ?? '').trim(),
      workflow: String(data.get('workflow') ?? '').trim(),
      ...(environment ? { environment } : {}),
    };
    void act(form.querySelector('button'), async (target) => {
      const added = await api<Publisher>('POST', path(target), body);
      publishers = [...publishers.filter((p) => p.id !== added.id), added];
      form.reset();
      show();
      return `${added.repository}'s ${added.workflow} may now publish versions of ${target.name}.`;
    });
  });

  section.querySelector('[data-list=publishers]')!.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action=remove-publisher]');
    if (!button || !confirmed(button, 'remove')) return;
    void act(button, async (target) => {
      await api('DELETE', `${path(target)}/${encodeURIComponent(button.value)}`);
      publishers = publishers.filter((p) => p.id !== button.value);
      show();
      return 'Removed: publish tokens it already holds run out within 15 minutes.';
    });
  });

  return { open };
}
