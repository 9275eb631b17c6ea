#!/usr/bin/env python3
"""Layering check (issue 27): a target includes only the repository headers of the targets it
links, directly or transitively; `cmake --build` fails otherwise (target kbench_layering).

Every target compiles with the repository root on its include path, so the compiler alone lets any
file include any header and the parts' boundaries would hold only at link time. This script reads
what CMake itself knows of the targets, through its File API (codemodel-v2 reply under
BUILD_DIR/.cmake/api/v1/reply; the top-level CMakeLists.txt writes the query), and checks every
`#include "..."` against it.

Rules:
- A target's closure: the libraries it depends on, and theirs, and so on. Only library targets
  count: an executable or a utility target reached through add_dependencies (a test that needs
  kbenchd built) gives no right to its headers.
- A header's owners, first rule that gives any:
  1. the targets that list it among their sources (generated proto headers: kbench_proto; a
     header-only INTERFACE library lists its headers, which is how the File API sees it at all);
  2. the targets that compile the .cc/.cu of the same name in the same folder;
  3. the targets that compile any source in the header's folder.
- An owned header may be included by its owners and by any target whose closure holds one of
  them. What an owned header includes is checked against each owner's closure.
- An INTERFACE library's headers are checked in each target that includes them, as that
  target's: CMake 3.25's File API lists no dependencies for an INTERFACE library (its usage
  requirements build nothing), so its own closure is unknown.
- An unowned header (its folder compiles nothing: tests/hostile_names.h) may be included from
  its own top-level folder only (tests/ from tests/), or from anywhere if listed in SHARED below.
- Includes that resolve to no file of the repository or the build tree (system headers spelled
  with quotes, third-party headers) are not checked. An include resolves as the compiler does:
  the including file's folder first, then the repository root, then the build tree's include
  folders (generated headers).

A failure names the including file and line, the included header, its owner(s) and the target
that would have to link one of them; fix it with that target_link_libraries, or by moving the
include where its target links the owner.

usage: check_includes.py BUILD_DIR [--cmake CMAKE]
  --cmake: if BUILD_DIR has no reply yet, configure it once more with this cmake first (CMake reads
  the File API's queries before it configures, so a build directory's first configure, which
  writes the query, gets its reply only from the next one).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

# Unowned headers any part may include (repository-relative paths). None today.
SHARED = set()

LIBRARY_TYPES = {"STATIC_LIBRARY", "SHARED_LIBRARY", "MODULE_LIBRARY", "OBJECT_LIBRARY",
                 "INTERFACE_LIBRARY"}
HEADER_SUFFIXES = (".h", ".hpp", ".cuh", ".inc")
COMPILED_SUFFIXES = (".cc", ".cpp", ".cu", ".c")
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


class Target:
    """One target of the codemodel: its name, type, sources (absolute paths), include folders and
    the ids of the targets it depends on."""

    def __init__(self, reply_dir, entry, source_root):
        with open(os.path.join(reply_dir, entry["jsonFile"]), encoding="utf-8") as f:
            data = json.load(f)
        self.id = data["id"]
        self.name = data["name"]
        self.type = data["type"]
        self.sources = [os.path.normpath(os.path.join(source_root, s["path"]))
                        for s in data.get("sources", [])]
        self.includes = {os.path.normpath(i["path"])
                         for group in data.get("compileGroups", [])
                         for i in group.get("includes", [])}
        self.dependency_ids = [d["id"] for d in data.get("dependencies", [])]


def latest_reply_index(build_dir):
    """The newest index file of the reply, or None (the File API names them by time, so the
    lexicographically last is the newest)."""
    indexes = sorted(glob.glob(os.path.join(build_dir, ".cmake/api/v1/reply/index-*.json")))
    return indexes[-1] if indexes else None


def load_codemodel(build_dir):
    """(source root, build root, targets by id) from the codemodel-v2 reply's first
    configuration (single-configuration generators: the only one)."""
    index_path = latest_reply_index(build_dir)
    reply_dir = os.path.dirname(index_path)
    with open(index_path, encoding="utf-8") as f:
        index = json.load(f)
    codemodel_file = index["reply"]["codemodel-v2"]["jsonFile"]
    with open(os.path.join(reply_dir, codemodel_file), encoding="utf-8") as f:
        codemodel = json.load(f)
    source_root = os.path.normpath(codemodel["paths"]["source"])
    build_root = os.path.normpath(codemodel["paths"]["build"])
    entries = codemodel["configurations"][0]["targets"]
    targets = [Target(reply_dir, e, source_root) for e in entries]
    return source_root, build_root, {t.id: t for t in targets}


def library_closures(targets):
    """Each target's name -> the names of the libraries it reaches through its dependencies."""
    closures = {}

    def closure_of(target):
        if target.id not in closures:
            closures[target.id] = set()  # a cycle (not expected) ends here
            reached = set()
            for dep_id in target.dependency_ids:
                dep = targets.get(dep_id)
                if dep is not None and dep.type in LIBRARY_TYPES:
                    reached |= {dep.name} | closure_of(dep)
            closures[target.id] = reached
        return closures[target.id]

    named = {t.name: closure_of(t) for t in targets.values()}
    for obj, embedding in embedded_object_libraries(targets):
        named[obj] |= {embedding} | named[embedding]
    return named


def embedded_object_libraries(targets):
    """(object library, target) for each target that takes an object library's objects as its
    own sources ($<TARGET_OBJECTS:...>): the objects are linked as part of that target."""
    objects = {t.name for t in targets.values() if t.type == "OBJECT_LIBRARY"}
    for t in targets.values():
        for obj in objects:
            if obj != t.name and any(f"{os.sep}{obj}.dir{os.sep}" in p for p in t.sources):
                yield obj, t.name


def stem(path):
    """service.pb.h -> .../service.pb; job_store.cc -> .../job_store."""
    return os.path.splitext(path)[0]


def header_owners(targets, libraries):
    """The function that names a header's owners (rules 1 to 3 above; rule 3 counts libraries
    only: the header-only helpers of a folder of test programs belong to none of them)."""
    listed = defaultdict(set)  # rule 1
    compiled_stems = defaultdict(set)  # rule 2
    compiled_folders = defaultdict(set)  # rule 3
    for t in targets.values():
        for path in t.sources:
            if path.endswith(HEADER_SUFFIXES):
                listed[path].add(t.name)
            elif path.endswith(COMPILED_SUFFIXES):
                compiled_stems[stem(path)].add(t.name)
                if t.name in libraries:
                    compiled_folders[os.path.dirname(path)].add(t.name)

    def owners_of(header):
        return (listed.get(header) or compiled_stems.get(stem(header))
                or compiled_folders.get(os.path.dirname(header)) or set())

    return owners_of


def quoted_includes(path):
    """(line number, spelling) of each `#include "..."` in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            match = QUOTED_INCLUDE.match(line)
            if match:
                yield number, match.group(1)


def resolver(source_root, build_root, targets):
    """The function that finds the file an include names, as the compiler would, or None."""
    generated_roots = sorted({i for t in targets.values() for i in t.includes
                              if i.startswith(build_root + os.sep)})

    def resolve(including_file, spelling):
        folders = [os.path.dirname(including_file), source_root] + generated_roots
        for folder in folders:
            candidate = os.path.normpath(os.path.join(folder, spelling))
            if os.path.isfile(candidate):
                return candidate
        return None

    return resolve


class Checker:
    """Follows each target's includes from its own files, as its compiler would, and checks each
    include against the target's closure."""

    def __init__(self, build_dir):
        self.source_root, self.build_root, self.targets = load_codemodel(build_dir)
        self.closures = library_closures(self.targets)
        self.libraries = {t.name for t in self.targets.values() if t.type in LIBRARY_TYPES}
        self.interfaces = {t.name for t in self.targets.values()
                           if t.type == "INTERFACE_LIBRARY"}
        self.owners_of = header_owners(self.targets, self.libraries)
        self.resolve = resolver(self.source_root, self.build_root, self.targets)
        self.includes_cache = {}

    def rel(self, path):
        return os.path.relpath(path, self.source_root)

    def in_repository(self, path):
        """A file of the checkout, not of the build tree (generated code is not ours to fix)."""
        return (path.startswith(self.source_root + os.sep)
                and not path.startswith(self.build_root + os.sep))

    def resolved_includes(self, path):
        """(line, spelling, file) of each quoted include of the file that names a file here."""
        if path not in self.includes_cache:
            found = ((line, spelling, self.resolve(path, spelling))
                     for line, spelling in quoted_includes(path))
            self.includes_cache[path] = [(l, s, f) for l, s, f in found if f and f != path]
        return self.includes_cache[path]

    def repository_headers(self):
        """Every header in the folders that hold a target's sources."""
        folders = {os.path.dirname(p) for t in self.targets.values() for p in t.sources
                   if self.in_repository(p)}
        return {os.path.join(folder, name) for folder in folders if os.path.isdir(folder)
                for name in os.listdir(folder) if name.endswith(HEADER_SUFFIXES)}

    def compiled_files(self, target):
        """The target's sources of the checkout: where its walk starts (none for an INTERFACE
        library: its headers are walked from the targets that include them)."""
        if target.name in self.interfaces:
            return set()
        return {p for p in target.sources if self.in_repository(p) and os.path.isfile(p)}

    def allowed(self, target, including_file, header):
        owners = self.owners_of(header)
        if owners:
            return target in owners or bool(owners & self.closures.get(target, set()))
        same_top = self.rel(including_file).split(os.sep)[0] == self.rel(header).split(os.sep)[0]
        return same_top or self.rel(header) in SHARED

    def check_target(self, target, roots, visited):
        """Violations in what the target compiles as its own: its sources, and the headers they
        reach that it owns, that an INTERFACE library owns or that no target owns. A header another target owns is that
        target's to check. Adds each checked file to visited."""
        violations = []
        queue, seen = sorted(roots), set(roots)
        while queue:
            path = queue.pop()
            visited.add(path)
            for line, spelling, header in self.resolved_includes(path):
                if not self.allowed(target, path, header):
                    violations.append(self.describe(path, line, spelling, header, target))
                owners = self.owners_of(header)
                checked_here = not owners or target in owners or owners <= self.interfaces
                if header not in seen and checked_here:
                    seen.add(header)
                    queue.append(header)
        return violations

    def check_unreached_header(self, header):
        """A header none of its owners' sources include (a folder's several libraries own it by
        rule 3; it may be meant for another part): it fails only where no owner may include
        what it includes."""
        owners = sorted(self.owners_of(header))
        violations = []
        for line, spelling, included in self.resolved_includes(header):
            if not any(self.allowed(o, header, included) for o in owners):
                violations.append(self.describe(header, line, spelling, included,
                                                " or ".join(owners)))
        return violations

    def describe(self, path, line, spelling, header, target):
        owners = sorted(self.owners_of(header))
        linkable = [o for o in owners if o in self.libraries]
        if linkable:
            why = (f"owned by {' or '.join(linkable)}, which {target} does not link: add "
                   f"target_link_libraries({target} ... {linkable[0]}) or move the include")
        elif owners:
            why = (f"owned by the program(s) {', '.join(owners)}, which no target links: "
                   f"compile its source into {target} or move it into a library")
        else:
            why = ("a header of no target, included from outside its top-level folder: "
                   "list it in SHARED (tools/layering/check_includes.py) or move it")
        return (f"{self.rel(path)}:{line}: [{target}] includes \"{spelling}\" "
                f"({self.rel(header)}), {why}")

    def run(self):
        violations, visited = set(), set()
        for t in self.targets.values():
            violations |= set(self.check_target(t.name, self.compiled_files(t), visited))
        for header in sorted(self.repository_headers() - visited):
            owners = self.owners_of(header)
            if owners and not owners <= self.interfaces:
                violations |= set(self.check_unreached_header(header))
        return sorted(violations)


def ensure_reply(build_dir, cmake):
    """Configure once more if the build directory's first configure left no reply yet."""
    if latest_reply_index(build_dir) is None and cmake:
        subprocess.run([cmake, build_dir], check=True, stdout=subprocess.DEVNULL)
    if latest_reply_index(build_dir) is None:
        sys.exit(f"check_includes: no CMake File API reply in {build_dir}/.cmake/api/v1/reply: "
                 f"configure it again (its first configure wrote the query)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--cmake", help="configure again with this cmake if there is no reply")
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build_dir)
    ensure_reply(build_dir, args.cmake)
    violations = Checker(build_dir).run()
    for v in violations:
        print(f"layering: {v}", file=sys.stderr)
    if violations:
        print(f"layering: {len(violations)} include(s) across a boundary the targets do not link "
              f"(tools/layering/check_includes.py, docs/architecture.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
