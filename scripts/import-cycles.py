#!/usr/bin/env python3
"""Import cycles between the modules of each crate in this workspace.

Usage: scripts/import-cycles.py [--reexports-as-edges] [--verbose] [CRATE_DIR ...]
       (default: every crates/*/ and examples/*/ with a src/lib.rs or src/main.rs)

For each crate it builds the graph of its own modules (one node per module file, `lib.rs` or
`main.rs` being `crate`) and an edge A -> B whenever A's non-test code names a path into
module B: a `use` of `crate::…`, `super::…`, `self::…` or a child module, or such a path
written inline (`gate::judge(…)` in lib.rs counts as lib.rs -> gate). The path goes to the
longest prefix that is a module. Comments, doc comments, string literals and `#[cfg(test)]`
items (inline or file modules) are left out; a module's declaration (`mod x;`) is not an edge.

How re-exports count (default): a `pub use` is not an edge of its own. A name reached through
a module's re-export of its own descendants' items (`crate::Canonical`, re-exported by the
root from `canonical`) is an edge to the module that defines it: a facade over its own tree
is no part of a cycle. A name reached through a re-export of another tree's items (`advisor`
re-exporting `advice`'s `Advice`) is an edge to the re-exporting module, whose file the
importer then depends on. With
`--reexports-as-edges` both count as written (the root's `pub use x::Y` is root -> x and
`use crate::Y` in x is x -> root).

Output per crate: every strongly connected component of more than one module (a cycle joins
its modules into one), the edges inside it with the file and line of one reference each, and
the number of elementary cycles (Johnson's algorithm, capped at 100000). The last line is the
workspace's total of both. Exit status 1 when any cycle is found, so CI can keep it at zero.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
CYCLE_CAP = 100000


def strip_comments_and_strings(text):
    """Blank out comments and string/char literals, keeping line numbers and offsets."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not re.match(r"\w", text[i - 1])):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            j = n if end < 0 else end + 1 + len(m.group(1))
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'", text[i:i + 12]):
            m = re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'", text[i:])
            out.append(" " * len(m.group(0)))
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_brace(text, open_at):
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def strip_test_items(text):
    """Blank out every item carrying #[cfg(test)]; returns (text, names of test file modules)."""
    test_mods = set()
    for m in reversed(list(re.finditer(r"#\[cfg\(test\)\]", text))):
        rest = text[m.end():]
        decl = re.match(r"(\s*#\[[^\]]*\])*\s*(pub(\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;", rest)
        if decl:
            test_mods.add(decl.group(4))
        # The item ends at its first top-level `;` or its first block's closing brace.
        j = m.end()
        while j < len(text) and text[j] not in "{;":
            j += 1
        end = matching_brace(text, j) if j < len(text) and text[j] == "{" else j
        text = text[:m.start()] + re.sub(r"[^\n]", " ", text[m.start():end + 1]) + text[end + 1:]
    return text, test_mods


def inline_modules(text):
    """(start, end, name) of every inline `mod name { … }` block."""
    out = []
    for m in re.finditer(r"\bmod\s+(" + IDENT + r")\s*\{", text):
        out.append((m.start(), matching_brace(text, m.end() - 1), m.group(1)))
    return out


def expand_use_tree(tree):
    """`a::{b, c::{d, self}}` -> ['a::b', 'a::c::d', 'a::c']."""
    tree = re.sub(r"\s+", "", tree)
    m = re.match(r"^(.*?)\{(.*)\}$", tree)
    if not m:
        tree = re.sub(r"::self$", "", tree)
        return [tree]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    paths = []
    for p in filter(None, parts):
        for sub in expand_use_tree(p):
            paths.append(prefix.rstrip(":") if sub == "self" else prefix + sub)
    return paths


class Crate:
    def __init__(self, directory):
        self.dir = directory
        self.name = os.path.basename(directory.rstrip("/"))
        src = os.path.join(directory, "src")
        self.root_file = os.path.join(src, "lib.rs")
        if not os.path.exists(self.root_file):
            self.root_file = os.path.join(src, "main.rs")
        self.files = {}  # module path (tuple) -> (file, stripped text)
        self.children = {}  # module -> set of child names
        self.load(("crate",), self.root_file, top=True)

    def load(self, module, path, top=False):
        with open(path, encoding="utf-8") as f:
            raw = f.read()
        text = strip_comments_and_strings(raw)
        text, test_mods = strip_test_items(text)
        self.files[module] = (path, text)
        self.children[module] = set()
        base = os.path.dirname(path) if top or os.path.basename(path) == "mod.rs" else path[:-3]
        for m in re.finditer(r"^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*([;{])", text, re.M):
            name = m.group(1)
            if name in test_mods:
                continue
            if m.group(2) == "{":
                continue  # inline modules are part of their file
            attr = re.search(r'#\[path\s*=\s*"([^"]+)"\]', raw[max(0, m.start() - 200):m.start() + 200])
            candidates = [os.path.join(os.path.dirname(path), attr.group(1))] if attr else [
                os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")]
            for c in candidates:
                if os.path.exists(c):
                    self.children[module].add(name)
                    self.load(module + (name,), c)
                    break

    def resolve_start(self, module, path):
        """Absolute segments of a path written in `module`, or None when it leaves the crate."""
        segs = [s for s in path.split("::") if s]
        if not segs:
            return None
        if segs[0] == "crate":
            return ["crate"] + segs[1:]
        if segs[0] in ("super", "self"):
            cur = list(module)
            while segs and segs[0] in ("super", "self"):
                if segs.pop(0) == "super":
                    cur = cur[:-1] if len(cur) > 1 else cur
            return cur + segs
        if segs[0] in self.children.get(module, ()):
            return list(module) + segs
        return None

    def longest_module(self, segs):
        best = None
        for k in range(1, len(segs) + 1):
            if tuple(segs[:k]) in self.files:
                best = tuple(segs[:k])
            else:
                break
        return best, segs[len(best):] if best else segs

    def use_statements(self, text):
        for m in re.finditer(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
            yield bool(m.group(1)), m.group(2), m.start()

    def reexports(self):
        """(module, name) -> module that defines the name, through chains of `pub use`."""
        table = {}
        for module, (_, text) in self.files.items():
            for public, tree, _ in self.use_statements(text):
                if not public:
                    continue
                for p in expand_use_tree(re.sub(r"\s+as\s+" + IDENT, "", tree)):
                    segs = self.resolve_start(module, p)
                    if segs is None:
                        continue
                    target, rest = self.longest_module(segs)
                    if target and len(rest) == 1:
                        table[(module, rest[-1])] = (target, rest[0])
        return table

    def edges(self, reexports_as_edges):
        reexp = {} if reexports_as_edges else self.reexports()

        def final(target, rest):
            seen = set()
            # A module's re-export of its own descendants' items is a facade, looked through; a
            # re-export of another tree's items (a sibling's) is the re-exporting module's own:
            # a name taken through it is taken from that module, whose file it depends on.
            while (
                rest
                and (target, rest[0]) in reexp
                and (target, rest[0]) not in seen
                and reexp[(target, rest[0])][0][: len(target)] == target
            ):
                seen.add((target, rest[0]))
                target, name = reexp[(target, rest[0])]
                rest = [name] + rest[1:]
            return target

        edges = {}

        def add(src, segs, path, offset, text):
            if segs is None:
                return
            target, rest = self.longest_module(segs)
            if target is None:
                return
            target = final(target, rest)
            if target != src:
                line = text.count("\n", 0, offset) + 1
                edges.setdefault((src, target), (path, line))

        for module, (path, text) in self.files.items():
            inline = inline_modules(text)

            def at(offset):
                """The module code at `offset` is in: inline `mod x { … }` blocks nest."""
                return module + tuple(name for (a, b, name) in inline if a < offset < b)

            covered = []
            for public, tree, start in self.use_statements(text):
                covered.append((start, start + len(tree) + 10))
                if public and not reexports_as_edges:
                    continue
                for p in expand_use_tree(re.sub(r"\s+as\s+" + IDENT, "", tree)):
                    add(module, self.resolve_start(at(start), p), path, start, text)
            starts = "crate|super|self|" + "|".join(map(re.escape, self.children[module]))
            for m in re.finditer(r"(?<![\w:])((?:" + starts + r")(?:::" + IDENT + r")+)", text):
                if any(a <= m.start() < b for a, b in covered):
                    continue
                add(module, self.resolve_start(at(m.start()), m.group(1)), path, m.start(), text)
        return edges


def sccs(nodes, adj):
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(adj.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def count_cycles(comp, adj):
    """Elementary cycles inside one component (Johnson), capped at CYCLE_CAP."""
    order = sorted(comp)
    count = 0
    for i, s in enumerate(order):
        allowed = set(order[i:])
        path, blocked, bmap = [s], {s}, {}

        def circuit(v):
            nonlocal count
            found = False
            for w in adj.get(v, ()):
                if w not in allowed or count >= CYCLE_CAP:
                    continue
                if w == s:
                    count += 1
                    found = True
                elif w not in blocked:
                    blocked.add(w)
                    if circuit(w):
                        found = True
            if found:
                unblock(v)
            else:
                for w in adj.get(v, ()):
                    if w in allowed:
                        bmap.setdefault(w, set()).add(v)
            return found

        def unblock(u):
            blocked.discard(u)
            for w in bmap.pop(u, set()):
                if w in blocked:
                    unblock(w)

        circuit(s)
    return count


def name(module):
    return "::".join(module)


def main(argv):
    reexports_as_edges = "--reexports-as-edges" in argv
    verbose = "--verbose" in argv
    dirs = [a for a in argv if not a.startswith("--")]
    if not dirs:
        for group in ("crates", "examples"):
            base = os.path.join(ROOT, group)
            for d in sorted(os.listdir(base)) if os.path.isdir(base) else []:
                src = os.path.join(base, d, "src")
                if os.path.exists(os.path.join(src, "lib.rs")) or os.path.exists(os.path.join(src, "main.rs")):
                    dirs.append(os.path.join(base, d))
    total_sccs = total_cycles = 0
    for d in dirs:
        crate = Crate(d)
        edges = crate.edges(reexports_as_edges)
        adj = {}
        for (a, b) in edges:
            adj.setdefault(a, set()).add(b)
        comps = [c for c in sccs(crate.files.keys(), adj) if len(c) > 1]
        cycles = sum(count_cycles(c, adj) for c in comps)
        total_sccs += len(comps)
        total_cycles += cycles
        print(f"{crate.name}: {len(crate.files)} modules, {len(edges)} edges, "
              f"{len(comps)} cyclic components, {cycles} cycles")
        for comp in comps:
            members = set(comp)
            print("  component: " + ", ".join(name(m) for m in comp))
            for (a, b), (path, line) in sorted(edges.items()):
                if a in members and b in members:
                    print(f"    {name(a)} -> {name(b)}  ({os.path.relpath(path, ROOT)}:{line})")
        if verbose:
            for (a, b), (path, line) in sorted(edges.items()):
                print(f"    edge {name(a)} -> {name(b)}  ({os.path.relpath(path, ROOT)}:{line})")
    print(f"total: {total_sccs} cyclic components, {total_cycles} cycles"
          + (" (re-exports as edges)" if reexports_as_edges else ""))
    return 1 if total_cycles else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
