import { fencedBlocks, splitLines } from '../scan/read/source-text.ts';

/**
 * The first stage of observing a version: what to run, in what order, the way its users would.
 * Package manifests first (`npm install` for a package.json, `pip install -r` for a
 * requirements.txt, `make` for a Makefile, as a reader setting the skill up does), then the
 * shell, Python, JavaScript and Ruby blocks of `SKILL.md` in order (as an agent following it
 * does), then each script (and each Go program, by `go run`) with no arguments and with
 * `--help`, and last what an editor does when the project is opened in it (its folder-open
 * tasks and dev-container commands, whichever step wrote them). Pure: the sandbox runner
 * (functions/sandbox) turns each step into a process.
 */

export type Interpreter = 'bash' | 'python3' | 'node' | 'ruby';

export type PlannedStep =
  /** A block of SKILL.md, written to a file of its own and given to its interpreter. */
  | { name: string; block: string; interpreter: Interpreter }
  /**
   * A command run in the skill's folder. `afterBare`: the `--help` run of the step before it, left
   * out when that bare run used its whole step (a server or a watcher: it would only wait again).
   */
  | { name: string; argv: string[]; afterBare?: true }
  /** The project (and the skill's folder) opened in an editor, after every other step. */
  | { name: string; editor: true };

/** The last step's name. */
export const EDITOR_STEP = 'the project opened in an editor';

/** What a file of the version needs to be planned: its name, bytes and executable bit. */
export interface PlanFile {
  filename: string;
  bytes: Uint8Array;
  executable?: boolean;
}

const FENCE_LANGUAGES: Record<string, Interpreter> = {
  sh: 'bash',
  bash: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  terminal: 'bash',
  python: 'python3',
  python3: 'python3',
  py: 'python3',
  js: 'node',
  javascript: 'node',
  node: 'node',
  mjs: 'node',
  cjs: 'node',
  ruby: 'ruby',
  rb: 'ruby',
};

const SCRIPT_EXTENSIONS: Record<string, Interpreter> = {
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  py: 'python3',
  js: 'node',
  mjs: 'node',
  cjs: 'node',
  rb: 'ruby',
};

/** A `console` block shows prompts and output: what follows `$ ` is what runs. */
function commandsOfConsole(text: string): string {
  const lines = text.split('\n');
  const prompted = lines.filter((l) => /^\s*[$#>] /.test(l));
  return prompted.length ? prompted.map((l) => l.replace(/^\s*[$#>] /, '')).join('\n') : text;
}

function blocksOf(skillMd: string): PlannedStep[] {
  const lines = splitLines(skillMd);
  return fencedBlocks(lines).flatMap((block) => {
    const interpreter = FENCE_LANGUAGES[block.tag];
    if (!interpreter || block.last < block.first) return [];
    const body = lines.slice(block.first - 1, block.last).join('\n');
    const text = block.tag === 'console' || block.tag === 'terminal' ? commandsOfConsole(body) : body;
    return [{ name: `SKILL.md:${block.first} (${block.tag})`, block: `${text}\n`, interpreter }];
  });
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes.subarray(0, 256));

/** How a file runs as a script: by its extension, its `#!` line, or as a program when it is executable; null when it is no script. */
function scriptCommand(file: PlanFile): string[] | null {
  const extension = file.filename.includes('.') ? file.filename.slice(file.filename.lastIndexOf('.') + 1).toLowerCase() : '';
  const interpreter = SCRIPT_EXTENSIONS[extension];
  if (interpreter) return [interpreter, file.filename];
  if (file.executable) return [`./${file.filename}`];
  // A script without its executable bit is run the way its `#!` line says (`sh x`, `env python3 x`), as a user would.
  const shebang = /^#!\s*(\S+)(?:[ \t]+([^\n]*))?/.exec(text(file.bytes));
  if (shebang) return [shebang[1]!, ...(shebang[2]?.trim().split(/\s+/).filter(Boolean) ?? []), file.filename];
  return null;
}

/** The manifest files that ask for an install, by file name at the skill's root. */
const INSTALLS: Record<string, string[]> = {
  'package.json': ['npm', 'install', '--no-audit', '--no-fund'],
  'requirements.txt': ['python3', '-m', 'pip', 'install', '--user', '--break-system-packages', '-r', 'requirements.txt'],
  Makefile: ['make'],
  makefile: ['make'],
};

/** The folders holding a Go `main` package, each run as `go run ./folder` (Go's files are a program together, not each alone). */
function goPrograms(files: readonly PlanFile[]): PlannedStep[] {
  const folders = new Set(
    files
      .filter((f) => f.filename.endsWith('.go') && !f.filename.endsWith('_test.go') && /^\s*package\s+main\b/m.test(new TextDecoder().decode(f.bytes)))
      .map((f) => (f.filename.includes('/') ? `./${f.filename.slice(0, f.filename.lastIndexOf('/'))}` : '.')),
  );
  return [...folders].sort().flatMap((folder) => [
    { name: `go run ${folder}`, argv: ['go', 'run', folder] },
    { name: `go run ${folder} --help`, argv: ['go', 'run', folder, '--help'], afterBare: true },
  ]);
}

/** Files an editor acts on when it opens their folder: tasks that run on open, a dev container's commands. */
const EDITOR_FILES = /(?:^|\/)(?:\.vscode\/tasks\.json|\.devcontainer\/devcontainer\.json|\.devcontainer\.json)$/;

/** The steps of a version, at most `limit` of them, in the order described above. */
export function planSteps(files: readonly PlanFile[], limit: number): PlannedStep[] {
  const byName = [...files].sort((a, b) => a.filename.localeCompare(b.filename));
  const installs = byName.flatMap((f): PlannedStep[] => {
    const argv = INSTALLS[f.filename];
    return argv ? [{ name: argv.slice(0, 2).join(' '), argv }] : [];
  });
  const skillMd = files.find((f) => f.filename === 'SKILL.md');
  const blocks = skillMd ? blocksOf(new TextDecoder().decode(skillMd.bytes)) : [];
  const scripts = byName.flatMap((f): PlannedStep[] => {
    if (f.filename === 'SKILL.md' || f.filename.endsWith('.md')) return [];
    const argv = scriptCommand(f);
    return argv
      ? [
          { name: f.filename, argv },
          { name: `${f.filename} --help`, argv: [...argv, '--help'], afterBare: true },
        ]
      : [];
  });
  const steps = [...installs, ...blocks, ...scripts, ...goPrograms(files)];
  // Whatever ran may have written the editor's tasks: opening the folder comes last, when anything ran or the version ships them.
  if (steps.length === 0 && !files.some((f) => EDITOR_FILES.test(f.filename))) return [];
  return [...steps.slice(0, limit - 1), { name: EDITOR_STEP, editor: true }];
}

/** Whether a version has anything to run: no step, no run. */
export function hasRunnableContent(files: readonly PlanFile[]): boolean {
  return planSteps(files, 1).length > 0;
}
