"""What kind a failed command is (figures/failure_kinds.py): tests, builds, type checks and
linters by their families across languages; probes (list, search, read, show processes); the
rest are commands. Each row is a command line an agent runs, its kind read off by hand."""
from __future__ import annotations

import pytest

from replay_site.figures.failure_kinds import KIND_NAMES, command_key, failure_kind
from replay_site.model import ToolCall

KINDS = {
    "check": [
        "pytest -q", "python -m pytest tests/", "uv run pytest -k x", "timeout 60 pytest", "python -m unittest test_x",
        "cd app && source .venv/bin/activate && pytest -x", "bash -lc 'npm test'", "env CI=1 npm test",
        "npm test", "npm run build:prod", "npm run test:unit", "yarn lint", "pnpm vitest run", "npx jest", "bun test",
        "cargo test --all", "cargo clippy", "cargo build --release", "go test ./...", "go vet ./...", "golangci-lint run",
        "tsc --noEmit", "npx tsc -p .", "mypy src", "ruff check .", "eslint src", "flake8", "pyright",
        "make", "make test", "./gradlew test", "mvn -q test", "dotnet test", "mix test", "swift build", "deno lint",
        "bundle exec rspec", "php artisan test", "python manage.py test", "./run_tests.sh", "python test_calc.py",
        "node scripts/build.js", "docker build .", "sh -n deploy.sh", "shellcheck deploy.sh",
    ],
    "probe": [
        "ls src", "cat x | head", "rg foo", "grep -r x .", "find . -name x", "ps aux | grep node", "which node",
        "head -5 f", "test -f x", "[ -f x ]", "git status", "git log -1", "echo hi | grep x", "curl -sf localhost:3000",
    ],
    "command": [
        "npm run dev", "cargo run", "go run main.go", "mkdir -p build", "rm -rf build", "cp a b", "git commit -m x",
        "git push", "python todo.py --done 1", "pip install -e .",
    ],
}


@pytest.mark.parametrize(("kind", "command"), [(kind, command) for kind, commands in KINDS.items() for command in commands])
def test_failed_command_kind(kind, command):
    call = ToolCall("Bash", code=command, language="bash", is_error=True, exit_code=1, output="FAILED something")
    assert KIND_NAMES[failure_kind(call)] == kind


def test_equivalent_runs_share_a_key_and_others_do_not():
    assert command_key("pytest tests/test_a.py") == command_key("python -m pytest -q") == command_key("cd app && pytest")
    assert command_key("npm test -- --run src/x.test.ts") == command_key("npm test")
    assert command_key("npm run build") != command_key("npm run dev")
    assert command_key("cargo test") != command_key("cargo build")
    assert command_key("source .venv/bin/activate && pytest -x") == command_key("pytest")
    assert command_key("bash -lc 'go test ./...'") == command_key("go test ./pkg")
