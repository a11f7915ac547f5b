# ruff: noqa: E501 (the scenarios are files and commands written out whole)
"""Write the generated part of ``error_outputs.json``: real tools' failures, run here.

Usage: ``python tests/data/make_error_outputs.py OUT.json`` (then merge with the
transcript part and label; see ``tests/data/SOURCES.md``).

Each scenario is a small project (its files written into a fresh temporary
folder) and one shell command an agent would run in it. The command runs under
``bash -c`` with stderr merged into stdout, as Claude Code's Bash tool shows it,
and a failed run is recorded the way Claude Code records it in the transcript:
``Exit code N`` on the first line, then the output. The temporary folder's path
is replaced by ``/home/user/project`` and the home folder by ``/home/user``, so
the file holds no path of the machine that made it. Nothing else is changed.

The tools must be installed (gcc, g++, make, cmake, cargo, go, javac/java, mvn,
node, npm, npx with typescript and eslint in ``--node-modules``, python with
pytest, mypy and ruff in ``--python``, git, jq, curl, terraform, kubectl); a
scenario whose tool is missing is skipped with a note on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROJECT = "/home/user/project"
# First words of scenarios that are not programs to look for (builtins, the missing program).
_NOT_ON_PATH = frozenset({"cd", "test", "./deploy.sh", "pnpmx"})
HOME = "/home/user"

# (class, id, files, command): the class is the tool family the held-out third is drawn per.
SCENARIOS: list[tuple[str, str, dict[str, str], str]] = [
    # --- C and C++ -------------------------------------------------------------------
    (
        "gcc",
        "gcc-undeclared",
        {
            "main.c": '#include <stdio.h>\nint main(void) {\n    printf("%d\\n", count);\n    return 0;\n}\n'
        },
        "gcc -Wall -o app main.c",
    ),
    (
        "gcc",
        "gcc-missing-header",
        {"main.c": '#include "config.h"\nint main(void) { return VERSION; }\n'},
        "gcc -o app main.c",
    ),
    (
        "gcc",
        "gcc-undefined-reference",
        {"main.c": "int helper(int);\nint main(void) { return helper(2); }\n"},
        "gcc -o app main.c",
    ),
    (
        "gcc",
        "gcc-wrong-args",
        {
            "main.c": "#include <string.h>\nint main(void) {\n    char buf[8];\n"
            "    strcpy(buf);\n    return 0;\n}\n"
        },
        "gcc -Wall -Wextra -o app main.c",
    ),
    (
        "g++",
        "gxx-no-member",
        {
            "main.cpp": "#include <vector>\nint main() {\n    std::vector<int> v;\n"
            "    v.push(1);\n    return v.size();\n}\n"
        },
        "g++ -std=c++17 -o app main.cpp",
    ),
    (
        "g++",
        "gxx-type-mismatch",
        {
            "main.cpp": "#include <string>\nint twice(int x) { return 2 * x; }\n"
            'int main() {\n    std::string s = "4";\n    return twice(s);\n}\n'
        },
        "g++ -o app main.cpp",
    ),
    (
        "g++",
        "gxx-missing-semicolon",
        {"main.cpp": "struct Point { int x; int y; }\nint main() { Point p{1, 2}; return p.x; }\n"},
        "g++ -o app main.cpp",
    ),
    (
        "make",
        "make-compile-error",
        {
            "Makefile": "app: main.o util.o\n\tcc -o app main.o util.o\n\n%.o: %.c\n\tcc -c -Wall $<\n",
            "main.c": "int util(void);\nint main(void) { return util(); }\n",
            "util.c": "int util(void) { return missing_value; }\n",
        },
        "make",
    ),
    (
        "make",
        "make-no-rule",
        {"Makefile": "all: build/app\n\nbuild/app: src/main.c\n\tcc -o $@ $<\n"},
        "make all",
    ),
    (
        "make",
        "make-missing-target",
        {"Makefile": "build:\n\t@echo building\n"},
        "make test",
    ),
    (
        "cmake",
        "cmake-missing-package",
        {
            "CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(app C)\n"
            "find_package(Foobarlib REQUIRED)\nadd_executable(app main.c)\n",
            "main.c": "int main(void) { return 0; }\n",
        },
        "cmake -S . -B build",
    ),
    (
        "cmake",
        "cmake-missing-source",
        {
            "CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(app C)\n"
            "add_executable(app main.c helpers.c)\n",
            "main.c": "int main(void) { return 0; }\n",
        },
        "cmake -S . -B build",
    ),
    (
        "cmake",
        "cmake-unknown-command",
        {
            "CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(app C)\n"
            "add_exectuable(app main.c)\n",
            "main.c": "int main(void) { return 0; }\n",
        },
        "cmake -S . -B build",
    ),
    # --- Rust --------------------------------------------------------------------------
    (
        "cargo",
        "cargo-unresolved-name",
        {
            "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/main.rs": 'fn main() {\n    let total = 3;\n    println!("{}", totl);\n}\n',
        },
        "cargo build --offline",
    ),
    (
        "cargo",
        "cargo-mismatched-types",
        {
            "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/main.rs": "fn double(x: i32) -> i32 { x * 2 }\n"
            'fn main() {\n    let n = double("4");\n    println!("{n}");\n}\n',
        },
        "cargo build --offline",
    ),
    (
        "cargo",
        "cargo-borrow",
        {
            "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/main.rs": 'fn main() {\n    let names = vec![String::from("a")];\n'
            '    let moved = names;\n    println!("{}", names.len());\n'
            "    drop(moved);\n}\n",
        },
        "cargo build --offline",
    ),
    (
        "cargo-test",
        "cargo-test-assert",
        {
            "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n"
            "    use super::*;\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n"
            "    }\n}\n",
        },
        "cargo test --offline",
    ),
    (
        "cargo-test",
        "cargo-test-unwrap",
        {
            "Cargo.toml": '[package]\nname = "conf"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": "pub fn port(text: &str) -> u16 { text.parse().unwrap() }\n\n"
            "#[cfg(test)]\nmod tests {\n    #[test]\n    fn reads_port() {\n"
            '        assert_eq!(super::port("80a"), 80);\n    }\n}\n',
        },
        "cargo test --offline",
    ),
    (
        "cargo-test",
        "cargo-test-no-such-test",
        {
            "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a + b }\n",
        },
        "cargo test --offline --test integration",
    ),
    # --- Go ----------------------------------------------------------------------------
    (
        "go",
        "go-undefined",
        {
            "go.mod": "module example.com/app\n\ngo 1.19\n",
            "main.go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(greeting)\n}\n',
        },
        "go build ./...",
    ),
    (
        "go",
        "go-unused-import",
        {
            "go.mod": "module example.com/app\n\ngo 1.19\n",
            "main.go": 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n'
            '\tfmt.Println("hi")\n}\n',
        },
        "go vet ./...",
    ),
    (
        "go",
        "go-missing-module",
        {
            "go.mod": "module example.com/app\n\ngo 1.19\n",
            "main.go": 'package main\n\nimport "github.com/example/nothere"\n\n'
            "func main() { nothere.Run() }\n",
        },
        "GOFLAGS=-mod=mod GOPROXY=off go build ./...",
    ),
    (
        "go-test",
        "go-test-fail",
        {
            "go.mod": "module example.com/calc\n\ngo 1.19\n",
            "calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
            "calc_test.go": 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n'
            '\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf("Add(2, 2) = %d, want 4", got)\n'
            "\t}\n}\n",
        },
        "go test ./...",
    ),
    (
        "go-test",
        "go-test-panic",
        {
            "go.mod": "module example.com/store\n\ngo 1.19\n",
            "store.go": "package store\n\nvar items map[string]int\n\n"
            "func Put(k string, v int) { items[k] = v }\n",
            "store_test.go": 'package store\n\nimport "testing"\n\nfunc TestPut(t *testing.T) {\n'
            '\tPut("a", 1)\n}\n',
        },
        "go test ./...",
    ),
    (
        "go-test",
        "go-test-verbose",
        {
            "go.mod": "module example.com/text\n\ngo 1.19\n",
            "text.go": 'package text\n\nimport "strings"\n\n'
            "func Title(s string) string { return strings.ToLower(s) }\n",
            "text_test.go": 'package text\n\nimport "testing"\n\nfunc TestTitle(t *testing.T) {\n'
            '\tif Title("go") != "Go" {\n\t\tt.Fatal("Title(go) should be Go")\n\t}\n}\n\n'
            'func TestEmpty(t *testing.T) {\n\tif Title("") != "" {\n\t\tt.Fatal("empty")\n'
            "\t}\n}\n",
        },
        "go test -v ./...",
    ),
    # --- Java --------------------------------------------------------------------------
    (
        "javac",
        "javac-cannot-find-symbol",
        {
            "Main.java": "public class Main {\n    public static void main(String[] args) {\n"
            "        System.out.println(mesage);\n    }\n}\n"
        },
        "javac Main.java",
    ),
    (
        "javac",
        "javac-incompatible-types",
        {
            "Main.java": "public class Main {\n    public static void main(String[] args) {\n"
            '        int count = "three";\n        System.out.println(count);\n    }\n}\n'
        },
        "javac Main.java",
    ),
    (
        "javac",
        "javac-missing-import",
        {
            "Main.java": "public class Main {\n    public static void main(String[] args) {\n"
            "        List<String> names = new ArrayList<>();\n        System.out.println(names);\n"
            "    }\n}\n"
        },
        "javac Main.java",
    ),
    (
        "java",
        "java-npe",
        {
            "Main.java": "public class Main {\n    static String name;\n"
            "    public static void main(String[] args) {\n"
            "        System.out.println(name.length());\n    }\n}\n"
        },
        "javac Main.java && java Main",
    ),
    (
        "java",
        "java-class-not-found",
        {"Main.java": "public class Main { public static void main(String[] a) {} }\n"},
        "java App",
    ),
    (
        "java",
        "java-index",
        {
            "Main.java": "public class Main {\n    public static void main(String[] args) {\n"
            "        System.out.println(args[0]);\n    }\n}\n"
        },
        "javac Main.java && java Main",
    ),
    (
        "maven",
        "mvn-offline-dependency",
        {
            "pom.xml": '<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
            "  <modelVersion>4.0.0</modelVersion>\n  <groupId>com.example</groupId>\n"
            "  <artifactId>app</artifactId>\n  <version>1.0</version>\n  <dependencies>\n"
            "    <dependency>\n      <groupId>com.example.nothere</groupId>\n"
            "      <artifactId>missing-lib</artifactId>\n      <version>9.9.9</version>\n"
            "    </dependency>\n  </dependencies>\n</project>\n",
        },
        "mvn -o -q compile",
    ),
    (
        "maven",
        "mvn-no-pom",
        {},
        "mvn -o -q test",
    ),
    (
        "maven",
        "mvn-bad-pom",
        {
            "pom.xml": "<project>\n  <modelVersion>4.0.0</modelVersion>\n  <artifactId>app\n</project>\n"
        },
        "mvn -o -q compile",
    ),
    # --- Python ------------------------------------------------------------------------
    (
        "python",
        "python-import-error",
        {"app.py": "import requests_oauthx\n\nprint(requests_oauthx.__version__)\n"},
        "python app.py",
    ),
    (
        "python",
        "python-key-error",
        {
            "app.py": "import json\n\n\ndef load(text):\n    return json.loads(text)['settings']['port']\n\n\n"
            "print(load('{\"settings\": {}}'))\n"
        },
        "python app.py",
    ),
    (
        "python",
        "python-syntax-error",
        {"app.py": "def main(:\n    print('hi')\n"},
        "python app.py",
    ),
    (
        "argparse",
        "argparse-missing-argument",
        {
            "cli.py": "import argparse\n\nparser = argparse.ArgumentParser(prog='cli.py')\n"
            "parser.add_argument('source')\nparser.add_argument('--out', required=True)\n"
            "parser.parse_args()\n"
        },
        "python cli.py data.csv",
    ),
    (
        "argparse",
        "argparse-bad-choice",
        {
            "cli.py": "import argparse\n\nparser = argparse.ArgumentParser(prog='cli.py')\n"
            "parser.add_argument('--format', choices=['json', 'csv'])\nparser.parse_args()\n"
        },
        "python cli.py --format yaml",
    ),
    (
        "argparse",
        "argparse-unrecognized",
        {
            "cli.py": "import argparse\n\nparser = argparse.ArgumentParser(prog='cli.py')\n"
            "parser.add_argument('--verbose', action='store_true')\nparser.parse_args()\n"
        },
        "python cli.py --quiet",
    ),
    (
        "pytest",
        "pytest-assert",
        {
            "calc.py": "def add(a, b):\n    return a - b\n",
            "test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n",
        },
        "python -m pytest -q",
    ),
    (
        "pytest",
        "pytest-collection-error",
        {"test_api.py": "from api import client\n\n\ndef test_ping():\n    assert client.ping()\n"},
        "python -m pytest",
    ),
    (
        "pytest",
        "pytest-exception",
        {
            "parse.py": "def parse(text):\n    key, value = text.split('=')\n    return {key: value}\n",
            "test_parse.py": "from parse import parse\n\n\ndef test_parse_pair():\n"
            "    assert parse('a=1') == {'a': '1'}\n\n\ndef test_parse_two():\n"
            "    assert parse('a=1=2') == {'a': '1=2'}\n",
        },
        "python -m pytest -v",
    ),
    (
        "mypy",
        "mypy-incompatible",
        {"app.py": "def port() -> int:\n    return '8080'\n"},
        "python -m mypy app.py",
    ),
    (
        "mypy",
        "mypy-attr",
        {
            "app.py": "class User:\n    name: str = ''\n\n\ndef show(u: User) -> str:\n    return u.nmae\n"
        },
        "python -m mypy --strict app.py",
    ),
    (
        "mypy",
        "mypy-missing-module",
        {"app.py": "import yamlish\n\nprint(yamlish.load)\n"},
        "python -m mypy app.py",
    ),
    (
        "ruff",
        "ruff-unused-import",
        {"app.py": "import os\nimport sys\n\nprint(sys.argv)\n"},
        "python -m ruff check app.py",
    ),
    (
        "ruff",
        "ruff-undefined-name",
        {"app.py": "def main():\n    return totl\n"},
        "python -m ruff check .",
    ),
    (
        "ruff",
        "ruff-format-check",
        {"app.py": "x = {  'a':1,'b' : 2 }\n"},
        "python -m ruff format --check .",
    ),
    (
        "pip",
        "pip-no-distribution",
        {},
        "python -m pip install --no-index nonexistent-package-xyz==1.0",
    ),
    (
        "pip",
        "pip-missing-requirements",
        {},
        "python -m pip install -r requirements-dev.txt",
    ),
    (
        "pip",
        "pip-bad-requirement",
        {"requirements.txt": "flask>=2.0,,<3\n"},
        "python -m pip install --no-index -r requirements.txt",
    ),
    # --- JavaScript and TypeScript -----------------------------------------------------
    (
        "node",
        "node-type-error",
        {
            "index.js": "const config = require('./config.json');\nconsole.log(config.server.port);\n",
            "config.json": "{}\n",
        },
        "node index.js",
    ),
    (
        "node",
        "node-module-not-found",
        {"index.js": "const express = require('express');\nexpress();\n"},
        "node index.js",
    ),
    (
        "node",
        "node-syntax-error",
        {"index.js": "function main() {\n  console.log('a'\n}\nmain();\n"},
        "node index.js",
    ),
    (
        "npm",
        "npm-missing-script",
        {
            "package.json": '{\n  "name": "app",\n  "version": "1.0.0",\n  "scripts": {"build": "echo build"}\n}\n'
        },
        "npm test",
    ),
    (
        "npm",
        "npm-404",
        {"package.json": '{\n  "name": "app",\n  "version": "1.0.0"\n}\n'},
        "npm install --no-audit --no-fund left-pad-nonexistent-xyz-acecode",
    ),
    (
        "npm",
        "npm-script-fails",
        {
            "package.json": '{\n  "name": "app",\n  "version": "1.0.0",\n'
            '  "scripts": {"lint": "node lint.js"}\n}\n',
            "lint.js": "console.error('lint: 2 files need formatting');\nprocess.exit(2);\n",
        },
        "npm run lint",
    ),
    (
        "tsc",
        "tsc-assignable",
        {
            "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true}, "files": ["app.ts"]}\n',
            "app.ts": "const port: number = process.env.PORT;\nconsole.log(port);\n",
        },
        "npx tsc",
    ),
    (
        "tsc",
        "tsc-property",
        {
            "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true}, "files": ["app.ts"]}\n',
            "app.ts": "interface User { name: string }\nconst u: User = { name: 'a' };\n"
            "console.log(u.email);\n",
        },
        "npx tsc",
    ),
    (
        "tsc",
        "tsc-implicit-any",
        {
            "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true}, "files": ["app.ts"]}\n',
            "app.ts": "export function total(items) {\n  return items.length;\n}\n",
        },
        "npx tsc --pretty false",
    ),
    (
        "eslint",
        "eslint-unused",
        {
            "eslint.config.js": 'const js = require("@eslint/js");\nmodule.exports = [js.configs.recommended,'
            ' {languageOptions: {sourceType: "commonjs", globals: {console: "readonly"}}}];\n',
            "app.js": "const unused = 1;\nconsole.log('hi');\n",
        },
        "npx eslint app.js",
    ),
    (
        "eslint",
        "eslint-undef",
        {
            "eslint.config.js": 'const js = require("@eslint/js");\nmodule.exports = [js.configs.recommended,'
            ' {languageOptions: {sourceType: "commonjs"}}];\n',
            "app.js": "function main() {\n  return fetchUser(id);\n}\nmodule.exports = main;\n",
        },
        "npx eslint .",
    ),
    (
        "eslint",
        "eslint-no-config",
        {"app.js": "console.log('hi');\n"},
        "npx eslint app.js",
    ),
    # --- git and the shell -------------------------------------------------------------
    (
        "git",
        "git-pathspec",
        {"README.md": "hi\n"},
        "git init -q && git add READM.md",
    ),
    (
        "git",
        "git-not-a-repo",
        {},
        "git status",
    ),
    (
        "git",
        "git-checkout-overwrite",
        {"notes.txt": "one\n"},
        "git init -q -b main && git add notes.txt && git -c user.name=a -c user.email=a@example.com "
        "commit -qm one && git checkout -qb topic && echo two > notes.txt && git -c user.name=a "
        "-c user.email=a@example.com commit -qam two && git checkout -q main && echo three > "
        "notes.txt && git checkout topic",
    ),
    (
        "git",
        "git-merge-conflict",
        {"notes.txt": "one\n"},
        "git init -q -b main && git add notes.txt && git -c user.name=a -c user.email=a@example.com "
        "commit -qm one && git checkout -qb topic && echo two > notes.txt && git -c user.name=a "
        "-c user.email=a@example.com commit -qam two && git checkout -q main && echo three > "
        "notes.txt && git -c user.name=a -c user.email=a@example.com commit -qam three && "
        "git -c user.name=a -c user.email=a@example.com merge topic",
    ),
    (
        "shell",
        "shell-command-not-found",
        {},
        "pnpmx install",
    ),
    (
        "shell",
        "shell-cd-missing",
        {},
        "cd frontend && npm test",
    ),
    (
        "shell",
        "shell-permission",
        {"deploy.sh": "#!/bin/sh\necho deploying\n"},
        "./deploy.sh",
    ),
    (
        "no-error-word",
        "grep-no-match",
        {"app.py": "print('hi')\n"},
        "grep -rn 'def main' app.py",
    ),
    (
        "no-error-word",
        "diff-exit",
        {"a.txt": "one\ntwo\n", "b.txt": "one\nthree\n"},
        "diff a.txt b.txt",
    ),
    (
        "no-error-word",
        "test-file",
        {},
        "test -f build/app && echo built",
    ),
    (
        "no-error-word",
        "git-diff-exit-code",
        {"notes.txt": "one\n"},
        "git init -q && git add notes.txt && echo two >> notes.txt && git diff --exit-code",
    ),
    # --- other CLIs --------------------------------------------------------------------
    (
        "jq",
        "jq-parse",
        {"data.json": '{"name": "a",}\n'},
        "jq .name data.json",
    ),
    (
        "jq",
        "jq-index",
        {"data.json": '["a", "b"]\n'},
        "jq .name data.json",
    ),
    (
        "jq",
        "jq-syntax",
        {"data.json": "{}\n"},
        "jq '.items[] | select(.id == )' data.json",
    ),
    (
        "curl",
        "curl-resolve",
        {},
        "curl -sS https://api.invalid/health",
    ),
    (
        "curl",
        "curl-refused",
        {},
        "curl -sS http://127.0.0.1:9/health",
    ),
    (
        "terraform",
        "terraform-unsupported-argument",
        {
            "main.tf": 'variable "name" {\n  type = string\n  defualt = "app"\n}\n',
        },
        "terraform validate -no-color",
    ),
    (
        "terraform",
        "terraform-undeclared",
        {"main.tf": 'output "name" {\n  value = var.app_name\n}\n'},
        "terraform validate -no-color",
    ),
    (
        "terraform",
        "terraform-syntax",
        {"main.tf": 'output "name" {\n  value = "a"\n'},
        "terraform validate -no-color",
    ),
    (
        "kubectl",
        "kubectl-no-file",
        {},
        "kubectl apply -f deploy.yaml",
    ),
    (
        "kubectl",
        "kubectl-bad-yaml",
        {"deploy.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  a: [\n"},
        "kubectl apply --dry-run=client -f deploy.yaml",
    ),
    (
        "kubectl",
        "kubectl-no-server",
        {},
        "kubectl get pods --request-timeout=2s",
    ),
]


def run(
    files: dict[str, str],
    command: str,
    env: dict[str, str],
    node_modules: Path | None,
    python: Path | None,
) -> tuple[int, str]:
    """Write ``files`` into a fresh folder and run ``command`` there (stderr into stdout)."""
    with tempfile.TemporaryDirectory(prefix="acecode-errors-") as folder:
        # Compilers' own temporary files (gcc's /tmp/ccXXXX.o) go inside the project.
        Path(folder, ".tmp").mkdir()
        env = {**env, "TMPDIR": str(Path(folder, ".tmp"))}
        if node_modules is not None:
            Path(folder, "node_modules").symlink_to(node_modules.resolve())
        for name, text in files.items():
            path = Path(folder, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if name.endswith(".sh"):
                path.chmod(0o644)  # not executable: the scenario is "permission denied"
        done = subprocess.run(
            ["bash", "-c", command + " 2>&1"],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        output = done.stdout + done.stderr
        real = os.path.realpath(folder)
        prefixes = {folder: PROJECT, real: PROJECT}
        if python is not None:
            prefixes[str(python.parent.parent)] = PROJECT + "/.venv"
        if node_modules is not None:
            prefixes[str(node_modules.resolve())] = PROJECT + "/node_modules"
        for prefix in sorted(prefixes, key=len, reverse=True):
            output = output.replace(prefix, prefixes[prefix])
        home = os.path.expanduser("~")
        output = re.sub(re.escape(home) + r"(?=/|\b)", HOME, output)
        return done.returncode, output


def transcript_cases(folder: Path) -> list[dict[str, str]]:
    """Every failed call of the shared transcripts under ``folder``, one case per distinct
    (tool, command, output), as acecode's transcript reader gives it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    from acecode.impact.signature import (
        SHELL_TOOLS,
        command_head,
        is_not_a_failure,
        shell_command,
    )
    from acecode.transcript import iter_messages

    cases: dict[tuple[str, str, str], dict[str, str]] = {}
    for path in sorted(folder.rglob("*.jsonl")):
        calls: dict[str, dict] = {}
        for message in iter_messages(path):
            if message.get("kind") == "tool_use":
                calls[str(message.get("tool_use_id"))] = message
            elif message.get("kind") == "tool_result" and message.get("is_error"):
                output = str(message.get("content") or "")
                call = calls.get(str(message.get("tool_use_id")), {})
                tool = str(message.get("tool_name") or call.get("tool_name") or "?")
                command = shell_command(call.get("tool_input")) if tool in SHELL_TOOLS else ""
                if is_not_a_failure(output) or (tool, command, output) in cases:
                    continue
                source = path.relative_to(folder).as_posix()
                number = sum(1 for case in cases.values() if case["source"] == source) + 1
                cases[(tool, command, output)] = {
                    "id": f"{source.rsplit('/', 1)[-1][:8]}-{number}",
                    "class": _family(tool, command_head(command)),
                    "source": source,
                    "tool": tool,
                    "command": command,
                    "output": output,
                }
    return list(cases.values())


def _family(tool: str, head: str) -> str:
    """The class a transcript case is drawn in: the tool family of its command."""
    if not head:
        return "claude-code-tool"
    for family in ("pytest", "pyright", "ruff", "mix", "git", "tsc", "npm", "uv", "python"):
        if family in head.split():
            return family
    return "shell"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--node-modules", type=Path, help="a node_modules with tsc and eslint")
    parser.add_argument("--python", type=Path, help="a python with pytest, mypy and ruff")
    parser.add_argument("--transcripts", type=Path, help="take the failed calls of these instead")
    args = parser.parse_args()
    if args.transcripts:
        cases = transcript_cases(args.transcripts)
        args.out.write_text(json.dumps({"cases": cases}, indent=1, ensure_ascii=False) + "\n")
        return 0
    env = dict(os.environ)
    env.update(LC_ALL="C.UTF-8", NO_COLOR="1", TERM="dumb", GIT_PAGER="cat", PAGER="cat")
    # pip as a stock install has it: no machine-wide config, index or wheel folder.
    env = {k: v for k, v in env.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p]
    if args.python:
        path.insert(0, str(args.python.parent))
    if args.node_modules:
        path.insert(0, str(args.node_modules / ".bin"))
        env["NODE_PATH"] = str(args.node_modules)
    env["PATH"] = os.pathsep.join(path)
    cases = []
    for family, case_id, files, command in SCENARIOS:
        tool = command.replace("GOFLAGS=-mod=mod GOPROXY=off ", "").split()[0]
        if shutil.which(tool, path=env["PATH"]) is None and tool not in _NOT_ON_PATH:
            print(f"skipped {case_id}: {tool} is not installed", file=sys.stderr)
            continue
        modules = args.node_modules if family in ("eslint", "tsc") else None
        code, output = run(files, command, env, modules, args.python)
        if code == 0:
            print(f"skipped {case_id}: the command succeeded", file=sys.stderr)
            continue
        cases.append(
            {
                "id": case_id,
                "class": family,
                "source": "generated",
                "tool": "Bash",
                "command": command,
                "output": f"Exit code {code}\n{output.rstrip()}",
            }
        )
        print(f"{case_id}: exit {code}, {len(output)} chars", file=sys.stderr)
    args.out.write_text(json.dumps({"cases": cases}, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
