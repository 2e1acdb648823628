/**
 * Where coding agents read a project's skills, by the agent ids of the `skills` CLI (its agents
 * table in npm `skills` 1.7.4), so `--agent` means the same folder in both tools. Many agents read
 * the shared `.agents/skills/` folder; Claude Code reads only `.claude/skills/`. Pure data.
 */

/** The folder that most agents read: Codex, Cursor, Gemini CLI, GitHub Copilot, OpenCode, Amp and more. */
export const SHARED_SKILLS_FOLDER = '.agents/skills';

/** Agent id → [name, project skills folder]. */
export const AGENTS: Readonly<Record<string, readonly [name: string, folder: string]>> = {
  adal: ['AdaL', '.adal/skills'],
  'aider-desk': ['AiderDesk', '.aider-desk/skills'],
  amp: ['Amp', '.agents/skills'],
  antigravity: ['Antigravity', '.agents/skills'],
  'antigravity-cli': ['Antigravity CLI', '.agents/skills'],
  astrbot: ['AstrBot', 'data/skills'],
  augment: ['Augment', '.augment/skills'],
  'autohand-code': ['Autohand Code CLI', '.autohand/skills'],
  bob: ['IBM Bob', '.bob/skills'],
  'claude-code': ['Claude Code', '.claude/skills'],
  cline: ['Cline', '.agents/skills'],
  'codearts-agent': ['CodeArts Agent', '.codeartsdoer/skills'],
  codebuddy: ['CodeBuddy', '.codebuddy/skills'],
  codemaker: ['Codemaker', '.codemaker/skills'],
  codestudio: ['Code Studio', '.codestudio/skills'],
  codex: ['Codex', '.agents/skills'],
  'command-code': ['Command Code', '.commandcode/skills'],
  continue: ['Continue', '.continue/skills'],
  cortex: ['Cortex Code', '.cortex/skills'],
  crush: ['Crush', '.crush/skills'],
  cursor: ['Cursor', '.agents/skills'],
  deepagents: ['Deep Agents', '.agents/skills'],
  devin: ['Devin for Terminal', '.devin/skills'],
  dexto: ['Dexto', '.agents/skills'],
  droid: ['Droid', '.agents/skills'],
  eve: ['Eve', 'agent/skills'],
  firebender: ['Firebender', '.agents/skills'],
  forgecode: ['ForgeCode', '.forge/skills'],
  fx: ['fx', '.agents/skills'],
  'gemini-cli': ['Gemini CLI', '.agents/skills'],
  'github-copilot': ['GitHub Copilot', '.agents/skills'],
  goose: ['Goose', '.goose/skills'],
  grok: ['Grok Build', '.grok/skills'],
  'hermes-agent': ['Hermes Agent', '.hermes/skills'],
  'iflow-cli': ['iFlow CLI', '.iflow/skills'],
  'inference-sh': ['inference.sh', '.inferencesh/skills'],
  jazz: ['Jazz', '.jazz/skills'],
  junie: ['Junie', '.junie/skills'],
  kilo: ['Kilo Code', '.agents/skills'],
  kimchi: ['Kimchi', '.kimchi/skills'],
  'kimi-code-cli': ['Kimi Code CLI', '.agents/skills'],
  'kiro-cli': ['Kiro CLI', '.kiro/skills'],
  kode: ['Kode', '.kode/skills'],
  lingma: ['Lingma', '.lingma/skills'],
  loaf: ['Loaf', '.agents/skills'],
  mcpjam: ['MCPJam', '.mcpjam/skills'],
  'minimax-code': ['MiniMax Code', '.minimax/skills'],
  'mistral-vibe': ['Mistral Vibe', '.vibe/skills'],
  moxby: ['Moxby', '.moxby/skills'],
  mux: ['Mux', '.mux/skills'],
  neovate: ['Neovate', '.neovate/skills'],
  ona: ['Ona', '.ona/skills'],
  openclaw: ['OpenClaw', 'skills'],
  opencode: ['OpenCode', '.agents/skills'],
  openhands: ['OpenHands', '.openhands/skills'],
  pi: ['Pi', '.agents/skills'],
  pochi: ['Pochi', '.pochi/skills'],
  'posit-assistant': ['Posit Assistant', '.posit/assistant/skills'],
  promptscript: ['PromptScript', '.agents/skills'],
  qoder: ['Qoder', '.qoder/skills'],
  'qoder-cn': ['Qoder CN', '.qoder/skills'],
  'qwen-code': ['Qwen Code', '.qwen/skills'],
  reasonix: ['Reasonix', '.reasonix/skills'],
  replit: ['Replit', '.agents/skills'],
  roo: ['Roo Code', '.roo/skills'],
  rovodev: ['Rovo Dev', '.rovodev/skills'],
  'sarvam-code': ['Sarvam Code', '.agents/skills'],
  'tabnine-cli': ['Tabnine CLI', '.tabnine/agent/skills'],
  terramind: ['Terramind', '.terramind/skills'],
  tinycloud: ['Tinycloud', '.tinycloud/skills'],
  trae: ['Trae', '.trae/skills'],
  'trae-cn': ['Trae CN', '.trae/skills'],
  universal: ['Universal', '.agents/skills'],
  warp: ['Warp', '.agents/skills'],
  windsurf: ['Windsurf', '.windsurf/skills'],
  zcode: ['ZCode', '.zcode/skills'],
  zed: ['Zed', '.agents/skills'],
  zencoder: ['Zencoder', '.zencoder/skills'],
  zenflow: ['Zenflow', '.zencoder/skills'],
};

/** Our own earlier ids, still accepted. */
export const AGENT_ALIASES: Readonly<Record<string, string>> = { claude: 'claude-code' };

/** The project folder an agent reads skills from, or undefined for an unknown id. */
export function agentFolder(id: string): string | undefined {
  const canonical = Object.hasOwn(AGENT_ALIASES, id) ? AGENT_ALIASES[id]! : id;
  return Object.hasOwn(AGENTS, canonical) ? AGENTS[canonical]![1] : undefined;
}

/**
 * Where each agent reads skills for every project of a user (`-g`), as the `skills` CLI installs
 * them globally: agents that read `.agents/skills` in a project read `~/.agents/skills`; the
 * others their own folder under the home folder, or under a folder an environment variable
 * moves (`$XDG_CONFIG_HOME` defaults to `.config`, `$CLAUDE_CONFIG_DIR` to `.claude`, …).
 * `null`: the agent has no user-level folder. Pure data.
 */
export const GLOBAL_FOLDERS: Readonly<Record<string, string | null>> = {
  adal: '.adal/skills',
  'aider-desk': '.aider-desk/skills',
  astrbot: '.astrbot/data/skills',
  augment: '.augment/skills',
  'autohand-code': '$AUTOHAND_HOME/skills',
  bob: '.bob/skills',
  'claude-code': '$CLAUDE_CONFIG_DIR/skills',
  'codearts-agent': '.codeartsdoer/skills',
  codebuddy: '.codebuddy/skills',
  codemaker: '.codemaker/skills',
  codestudio: '.codestudio/skills',
  'command-code': '.commandcode/skills',
  continue: '.continue/skills',
  cortex: '.snowflake/cortex/skills',
  crush: '.config/crush/skills',
  devin: '$XDG_CONFIG_HOME/devin/skills',
  eve: null,
  forgecode: '.forge/skills',
  goose: '$XDG_CONFIG_HOME/goose/skills',
  grok: '$GROK_HOME/skills',
  'hermes-agent': '$HERMES_HOME/skills',
  'iflow-cli': '.iflow/skills',
  'inference-sh': '.inferencesh/skills',
  jazz: '.jazz/skills',
  junie: '.junie/skills',
  kimchi: '.config/kimchi/harness/skills',
  'kiro-cli': '.kiro/skills',
  kode: '.kode/skills',
  lingma: '.lingma/skills',
  mcpjam: '.mcpjam/skills',
  'minimax-code': '.minimax/skills',
  'mistral-vibe': '$VIBE_HOME/skills',
  moxby: '.moxby/skills',
  mux: '.mux/skills',
  neovate: '.neovate/skills',
  ona: '.ona/skills',
  openclaw: '.openclaw/skills',
  openhands: '.openhands/skills',
  pochi: '.pochi/skills',
  'posit-assistant': '.posit/assistant/skills',
  promptscript: null,
  qoder: '.qoder/skills',
  'qoder-cn': '.qoder-cn/skills',
  'qwen-code': '.qwen/skills',
  reasonix: '.reasonix/skills',
  roo: '.roo/skills',
  rovodev: '.rovodev/skills',
  'tabnine-cli': '.tabnine/agent/skills',
  terramind: '.terramind/skills',
  tinycloud: '.tinycloud/skills',
  trae: '.trae/skills',
  'trae-cn': '.trae-cn/skills',
  windsurf: '.codeium/windsurf/skills',
  zcode: '.zcode/skills',
  zencoder: '.zencoder/skills',
  zenflow: '.zencoder/skills',
};

/** The variables that move an agent's user-level folder, and the folder under home each defaults to. */
export const GLOBAL_FOLDER_HOMES: Readonly<Record<string, string>> = {
  XDG_CONFIG_HOME: '.config',
  CLAUDE_CONFIG_DIR: '.claude',
  AUTOHAND_HOME: '.autohand',
  GROK_HOME: '.grok',
  HERMES_HOME: '.hermes',
  VIBE_HOME: '.vibe',
};

/**
 * The user-level folder of an agent as written in {@link GLOBAL_FOLDERS} (`$VAR/…` or a path
 * under home), undefined for an unknown id, null for an agent without one.
 */
export function globalAgentFolder(id: string): string | null | undefined {
  const canonical = Object.hasOwn(AGENT_ALIASES, id) ? AGENT_ALIASES[id]! : id;
  if (!Object.hasOwn(AGENTS, canonical)) return undefined;
  return Object.hasOwn(GLOBAL_FOLDERS, canonical) ? GLOBAL_FOLDERS[canonical]! : SHARED_SKILLS_FOLDER;
}
