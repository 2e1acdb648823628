import { describe, expect, it } from 'vitest';
import { hasRunnableContent, planSteps } from '#core/behaviour/plan';

const file = (filename: string, text: string, executable = false) => ({ filename, bytes: Buffer.from(text), executable });

describe('the plan of a run', () => {
  it('installs what the manifests ask for, then runs SKILL.md’s blocks in order, then each script bare and with --help', () => {
    const steps = planSteps(
      [
        file('scripts/report.py', 'print(1)\n'),
        file('SKILL.md', '# S\n\n```bash\necho one\n```\n\nText.\n\n```python\nprint(2)\n```\n\n```json\n{}\n```\n'),
        file('package.json', '{}'),
        file('requirements.txt', 'requests\n'),
        file('bin/tool', '#!/bin/sh\necho tool\n'),
        file('data/table.csv', 'a,b\n'),
      ],
      40,
    );
    expect(steps.map((s) => s.name)).toEqual([
      'npm install',
      'python3 -m',
      'SKILL.md:4 (bash)',
      'SKILL.md:10 (python)',
      'bin/tool',
      'bin/tool --help',
      'scripts/report.py',
      'scripts/report.py --help',
      'the project opened in an editor',
    ]);
    expect(steps[2]).toEqual({ name: 'SKILL.md:4 (bash)', block: 'echo one\n', interpreter: 'bash' });
    expect(steps[6]).toEqual({ name: 'scripts/report.py', argv: ['python3', 'scripts/report.py'] });
    expect(steps[4]).toEqual({ name: 'bin/tool', argv: ['/bin/sh', 'bin/tool'] });
    // A --help run is left out when the bare run before it used its whole step (a server, a watcher).
    expect(steps[7]).toEqual({ name: 'scripts/report.py --help', argv: ['python3', 'scripts/report.py', '--help'], afterBare: true });
  });

  it('runs what follows the prompt in a console block, and plans no more steps than its limit', () => {
    const steps = planSteps([file('SKILL.md', '```console\n$ make build\nbuilding…\n$ ./run\n```\n')], 40);
    expect(steps).toEqual([
      { name: 'SKILL.md:2 (console)', block: 'make build\n./run\n', interpreter: 'bash' },
      { name: 'the project opened in an editor', editor: true },
    ]);
    const limited = planSteps([file('a.sh', 'x'), file('b.sh', 'y')], 3);
    expect(limited.map((s) => s.name)).toEqual(['a.sh', 'a.sh --help', 'the project opened in an editor']);
  });

  it('runs Ruby scripts and blocks, each Go main package by go run, and opens the folder of a version that ships only editor tasks', () => {
    const steps = planSteps(
      [
        file('SKILL.md', '```ruby\nputs 1\n```\n'),
        file('scripts/run.rb', 'puts 2\n'),
        file('go.mod', 'module example.com/t\n'),
        file('cmd/tool/main.go', 'package main\nfunc main() {}\n'),
        file('cmd/tool/util.go', 'package main\n'),
        file('lib/lib.go', 'package lib\n'),
      ],
      40,
    );
    expect(steps.map((s) => ('argv' in s ? s.argv.join(' ') : s.name))).toEqual([
      'SKILL.md:2 (ruby)',
      'ruby scripts/run.rb',
      'ruby scripts/run.rb --help',
      'go run ./cmd/tool',
      'go run ./cmd/tool --help',
      'the project opened in an editor',
    ]);
    expect(planSteps([file('SKILL.md', '# S\n'), file('.vscode/tasks.json', '{}')], 40)).toEqual([{ name: 'the project opened in an editor', editor: true }]);
  });

  it('runs a script without its executable bit by its #! line, and an executable one as a program', () => {
    const steps = planSteps([file('bin/a', '#!/usr/bin/env python3\nprint(1)\n'), file('bin/b', '#!/bin/sh\necho b\n', true)], 40);
    expect(steps.filter((s) => 'argv' in s && !s.name.endsWith('--help')).map((s) => ('argv' in s ? s.argv : []))).toEqual([
      ['/usr/bin/env', 'python3', 'bin/a'],
      ['./bin/b'],
    ]);
  });

  it('finds nothing to run in a version of prose and data', () => {
    expect(hasRunnableContent([file('SKILL.md', '# Notes\n\n```json\n{"a":1}\n```\n'), file('ref/guide.md', 'text')])).toBe(false);
    expect(hasRunnableContent([file('SKILL.md', '# S\n'), file('run', 'binary', true)])).toBe(true);
  });
});
