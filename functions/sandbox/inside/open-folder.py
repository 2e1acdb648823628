"""What an editor does when a folder is opened in it: the sandbox's last step.

VS Code runs the tasks of `.vscode/tasks.json` whose `runOptions.runOn` is `folderOpen`; a dev
container runs the lifecycle commands of its `devcontainer.json`. Whatever step wrote them (or
the version shipped them), a user opening the folder runs them, so the sandbox does too. The
folders are this script's arguments (the project, and the skill's own folder).
"""

import json
import os
import re
import subprocess
import sys

DEV_CONTAINER_COMMANDS = ("initializeCommand", "onCreateCommand", "updateContentCommand", "postCreateCommand", "postStartCommand", "postAttachCommand")


def jsonc(path):
    """A JSON file as the editor reads it: comments and trailing commas allowed; None when absent or unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/', lambda m: m.group(1) or "", text, flags=re.S)
        return json.loads(re.sub(r",(\s*[}\]])", r"\1", text))
    except (OSError, ValueError):
        return None


def commands(value):
    """A lifecycle command: a string (a shell line), a list (a program and its arguments), or an object of either."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [value]
    if isinstance(value, dict):
        return [c for v in value.values() for c in commands(v)]
    return []


def task_command(task):
    """A task's command: a shell line, or a program and its arguments for a `process` task."""
    linux = task.get("linux") if isinstance(task.get("linux"), dict) else {}
    command, args = linux.get("command", task.get("command")), linux.get("args", task.get("args") or [])
    if not isinstance(command, str):
        return None
    words = [command] + [a if isinstance(a, str) else str(a.get("value", "")) for a in args if isinstance(a, (str, dict))]
    return words if task.get("type") == "process" else " ".join(words)


def folder_open(folder):
    todo = []
    tasks = jsonc(os.path.join(folder, ".vscode", "tasks.json"))
    for task in tasks.get("tasks", []) if isinstance(tasks, dict) else []:
        run_options = task.get("runOptions") if isinstance(task, dict) else None
        if isinstance(run_options, dict) and run_options.get("runOn") == "folderOpen":
            todo += [c for c in [task_command(task)] if c]
    for name in (".devcontainer/devcontainer.json", ".devcontainer.json"):
        container = jsonc(os.path.join(folder, name))
        if isinstance(container, dict):
            for key in DEV_CONTAINER_COMMANDS:
                todo += commands(container.get(key))
    return todo


for folder in sys.argv[1:]:
    for command in folder_open(folder):
        try:
            shell = isinstance(command, str)
            subprocess.run(command, shell=shell, executable="/bin/bash" if shell else None, cwd=folder, stdin=subprocess.DEVNULL, check=False)
        except OSError:
            pass
