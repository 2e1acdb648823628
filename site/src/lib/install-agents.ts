/**
 * The agents a skill page offers install commands for, by the ids both our CLI and the `skills`
 * CLI take with `--agent` (cli/agents.ts lists every one; a test keeps these among them): the
 * ones most people use, as skills.sh offers them. Without a choice, both CLIs install where
 * most agents read (`.agents/skills`).
 */
export const INSTALL_AGENTS: readonly (readonly [id: string, name: string])[] = [
  ['claude-code', 'Claude Code'],
  ['codex', 'Codex'],
  ['cursor', 'Cursor'],
  ['github-copilot', 'GitHub Copilot'],
  ['gemini-cli', 'Gemini CLI'],
  ['windsurf', 'Windsurf'],
  ['opencode', 'OpenCode'],
  ['amp', 'Amp'],
  ['cline', 'Cline'],
  ['roo', 'Roo Code'],
  ['goose', 'Goose'],
  ['kiro-cli', 'Kiro CLI'],
];

/** `command` for `agent` ('' for none): its `--agent` flag replaced, or taken away. */
export function forAgent(command: string, agent: string): string {
  const base = command.replace(/ --agent \S+$/, '');
  return agent ? `${base} --agent ${agent}` : base;
}
