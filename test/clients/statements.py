#!/usr/bin/env python3
"""The documented statements of a Markdown file, in order, for the client checks.

    statements.py FILE.md OUT

Every ```sql block of FILE.md is split into statements (on semicolons outside quotes, dollar
quotes and comments); they are written to OUT separated by NUL bytes. check_psycopg2.py and
CheckJdbc.java both read OUT, so the list of queries the clients run is the documentation itself,
written once.
"""
import re
import sys

IDENT_CHAR = re.compile(r"[A-Za-z0-9_$]")
TRAILING_COMMENT = re.compile(r"[ \t]*--[^\n]*")
DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")


def sql_blocks(markdown):
    blocks, inside, lines = [], False, []
    for line in markdown.splitlines():
        if not inside and line.startswith("```sql"):
            inside, lines = True, []
        elif inside and line.startswith("```"):
            inside = False
            blocks.append("\n".join(lines) + "\n")
        elif inside:
            lines.append(line)
    return blocks


def split_statements(sql):
    """Splits on top-level semicolons; keeps each statement's text (comments included)."""
    out, start, i, n = [], 0, 0, len(sql)
    while i < n:
        c = sql[i]
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
        elif sql.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if sql.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif sql.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "'":
            escapes = i > 0 and sql[i - 1] in "eE" and (i < 2 or not IDENT_CHAR.match(sql[i - 2]))
            i += 1
            while i < n:
                if escapes and sql[i] == "\\":
                    i += 2
                elif sql[i] == "'":
                    if sql.startswith("''", i):
                        i += 2
                    else:
                        i += 1
                        break
                else:
                    i += 1
        elif c == '"':
            j = i + 1
            while j < n and not (sql[j] == '"' and not sql.startswith('""', j)):
                j += 2 if sql.startswith('""', j) else 1
            i = j + 1
        elif c == "$" and (i == 0 or not IDENT_CHAR.match(sql[i - 1])) and DOLLAR_TAG.match(sql, i):
            tag = DOLLAR_TAG.match(sql, i).group(0)
            j = sql.find(tag, i + len(tag))
            i = n if j < 0 else j + len(tag)
        elif c == ";":
            end = i + 1
            trailing = TRAILING_COMMENT.match(sql, end)  # "...; -- about this statement"
            if trailing:
                end = trailing.end()
            out.append(sql[start:end])
            start = i = end
        else:
            i += 1
    out.append(sql[start:])
    return [s.strip() for s in out if has_code(s)]


def has_code(statement):
    """False for text that is only white space and comments."""
    code = re.sub(r"--[^\n]*", "", statement)
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    return code.strip().strip(";").strip() != ""


def main():
    source, target = sys.argv[1], sys.argv[2]
    with open(source, encoding="utf-8") as f:
        statements = [s for block in sql_blocks(f.read()) for s in split_statements(block)]
    if any("\0" in s for s in statements):
        sys.exit(f"{source}: a statement contains a NUL byte")
    with open(target, "w", encoding="utf-8") as f:
        f.write("\0".join(statements))
    print(f"{source}: {len(statements)} statements")


if __name__ == "__main__":
    main()
