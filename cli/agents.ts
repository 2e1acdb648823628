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
