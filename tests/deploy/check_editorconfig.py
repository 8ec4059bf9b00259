#!/usr/bin/env python3
"""Every tracked text file obeys .editorconfig: charset, end_of_line, insert_final_newline,
trim_trailing_whitespace, indent_style and max_line_length, as the section(s) matching the file set
them.

Which properties apply to a file is decided by python3-editorconfig (Debian), the EditorConfig
project's own Python core, so section globs (`[*.{cpp,hpp}]`, `[Makefile]`) and precedence match
what editors do. The checks themselves are written here: Debian 12 packages no EditorConfig
checker (editorconfig-checker is not in it). Which files are text is git's own decision
(`git ls-files --eol`: `i/-text` is binary and skipped), so the fuzz corpora and images are not
read as text.

max_line_length (C++ and .proto files) matches clang-format's ColumnLimit; clang-format keeps C++
within it but cannot break a long raw string or a .proto line, which this check catches.

Usage: check_editorconfig.py SOURCE_DIR            check the tracked files
       check_editorconfig.py SOURCE_DIR FILE...    check these files (any path) instead
Exit code 0: no violation; 1: violations, one line each (file:line: what).
"""
import os
import shutil
import subprocess
import sys
import tempfile

import editorconfig

# Violations printed per file before the rest are summed up, so a file with CRLF line ends does
# not print thousands of lines.
MAX_PER_FILE = 5


def tracked_text_files(source_dir):
    """Tracked files git classifies as text (or empty), relative to source_dir."""
    out = subprocess.run(["git", "-C", source_dir, "ls-files", "--eol", "-z"], capture_output=True,
                         check=True).stdout.decode()
    files = []
    for entry in filter(None, out.split("\0")):
        info, path = entry.split("\t", 1)
        if not info.startswith("i/-text"):
            files.append(path)
    return files


def indent_problem(line, style):
    """Why this line's leading whitespace breaks indent_style, or None."""
    indent = line[:len(line) - len(line.lstrip(" \t"))]
    if style == "space" and "\t" in indent:
        return "tab in the indentation (indent_style = space)"
    # With tabs, spaces may follow the tabs to align a continuation, but not start the line.
    if style == "tab" and indent.startswith(" "):
        return "indentation starts with a space (indent_style = tab)"
    return None


def check_file(path, props):
    """[(line number or None, message)] for one file under its EditorConfig properties."""
    raw = open(path, "rb").read()
    problems = []
    charset = props.get("charset")
    if charset in ("utf-8", "utf-8-bom"):
        has_bom = raw.startswith(b"\xef\xbb\xbf")
        if charset == "utf-8" and has_bom:
            problems.append((1, "UTF-8 byte order mark (charset = utf-8 has none)"))
        if charset == "utf-8-bom" and not has_bom:
            problems.append((1, "no UTF-8 byte order mark (charset = utf-8-bom)"))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return [(raw.count(b"\n", 0, e.start) + 1, f"not UTF-8: {e.reason} at byte {e.start}")]
    else:
        text = raw.decode("latin-1")  # no charset rule: read every byte as one character

    eol = {"lf": "\n", "crlf": "\r\n", "cr": "\r"}.get(props.get("end_of_line"))
    if eol == "\n" and "\r" in text:
        problems.append((text.count("\n", 0, text.index("\r")) + 1, "carriage return (end_of_line = lf)"))
    elif eol == "\r\n" and text.replace("\r\n", "").count("\n"):
        problems.append((None, "line ends other than CRLF (end_of_line = crlf)"))

    final = props.get("insert_final_newline")
    ends_with_newline = text.endswith(eol or "\n")
    if final == "true" and text and not ends_with_newline:
        problems.append((text.count("\n") + 1, "no newline at the end of the file"))
    if final == "false" and ends_with_newline:
        problems.append((text.count("\n"), "newline at the end of the file (insert_final_newline = false)"))

    trim = props.get("trim_trailing_whitespace") == "true"
    style = props.get("indent_style")
    max_len = props.get("max_line_length")
    max_len = int(max_len) if max_len and max_len.isdigit() else None
    for n, line in enumerate(text.split(eol or "\n"), start=1):
        line = line.rstrip("\r\n")
        if trim and line != line.rstrip(" \t"):
            problems.append((n, "trailing whitespace"))
        why = indent_problem(line, style)
        if why:
            problems.append((n, why))
        if max_len is not None and len(line) > max_len:
            problems.append((n, f"{len(line)} characters (max_line_length = {max_len})"))
    return problems


def self_test(source_dir):
    """The check itself can fail: one file per kind of violation, under a copy of the project's
    .editorconfig, must each be reported, and a clean file must not. Returns failures."""
    long_line = "x" * 121
    cases = {  # file name: (content, words the report must contain); None = clean
        "clean.cpp": (b"int main() {\n  return 0;\n}\n", None),
        "bom.md": (b"\xef\xbb\xbftext\n", "byte order mark"),
        "latin1.txt": (b"caf\xe9\n", "not UTF-8"),
        "crlf.py": (b"x = 1\r\n", "carriage return"),
        "no_newline.json": (b"{}", "no newline"),
        "trailing.hpp": (b"int x;  \n", "trailing whitespace"),
        "tabbed.cpp": (b"int f() {\n\treturn 0;\n}\n", "tab in the indentation"),
        "Makefile": (b"all:\n    true\n", "starts with a space"),
        "long.proto": (f"// {long_line}\n".encode(), "max_line_length = 120"),
    }
    failures = []
    with tempfile.TemporaryDirectory(prefix="flockstep_editorconfig_") as tmp:
        shutil.copy(os.path.join(source_dir, ".editorconfig"), tmp)
        for name, (content, expect) in cases.items():
            path = os.path.join(tmp, name)
            open(path, "wb").write(content)
            found = " / ".join(m for _, m in check_file(path, editorconfig.get_properties(path)))
            if expect is None and found:
                failures.append(f"self-test: clean {name} reported: {found}")
            if expect is not None and expect not in found:
                failures.append(f"self-test: {name} should report '{expect}', reported '{found}'")
    return failures


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    source_dir = os.path.abspath(sys.argv[1])
    if len(sys.argv) > 2:
        files = [os.path.abspath(f) for f in sys.argv[2:]]
    else:
        files = [os.path.join(source_dir, f) for f in tracked_text_files(source_dir)]
    if not os.path.isfile(os.path.join(source_dir, ".editorconfig")):
        print(f"FAIL: no .editorconfig in {source_dir}")
        return 1
    broken = self_test(source_dir)
    for f in broken:
        print("FAIL:", f)
    if broken:
        return 1
    bad_files, total = 0, 0
    for path in files:
        if not os.path.isfile(path):  # deleted in the work tree but still in the index
            continue
        problems = check_file(path, editorconfig.get_properties(path))
        if not problems:
            continue
        bad_files += 1
        total += len(problems)
        rel = os.path.relpath(path, source_dir)
        for line, message in problems[:MAX_PER_FILE]:
            print(f"FAIL: {rel}:{line or ''}: {message}" if line else f"FAIL: {rel}: {message}")
        if len(problems) > MAX_PER_FILE:
            print(f"FAIL: {rel}: ... and {len(problems) - MAX_PER_FILE} more")
    print(f"{len(files)} text files checked against .editorconfig: {total} problems in {bad_files} files")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
