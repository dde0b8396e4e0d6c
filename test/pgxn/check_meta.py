#!/usr/bin/env python3
"""Checks META.json against the PGXN Meta Spec v1.0.0 (https://pgxn.org/spec/), as read by the
project: the keys it allows and requires, their types and formats; then that it agrees with the
tree (the files it names exist, its version is the Makefile's EXTVERSION). With --self-test, also
that each of a list of broken copies is refused, so that the checker itself is known to look.
Exit 0 when valid; prints each violation otherwise."""
import copy
import json
import os
import re
import sys

LICENSES = {
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd", "gfdl_1_2",
    "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit", "mozilla_1_0", "mozilla_1_1",
    "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay", "sun", "zlib", "open_source", "restricted",
    "unrestricted", "unknown",
}
REQUIRED = {"name", "version", "abstract", "maintainer", "license", "provides", "meta-spec"}
OPTIONAL = {"description", "generated_by", "tags", "no_index", "prereqs", "release_status", "resources"}
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$")
RANGE = re.compile(r"^\s*(==|!=|>=|<=|>|<)?\s*\S+\s*$")
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")


def custom(key):
    return re.match(r"^[xX]_.", key) is not None


def term(value):
    return isinstance(value, str) and re.match(r"^[^/\\\s\x00-\x1f\x7f]{2,}$", value) is not None


def relative_path(value):
    return isinstance(value, str) and value != "" and not value.startswith("/") and "\\" not in value


def check_spec(meta):
    errors = []
    err = errors.append
    if not isinstance(meta, dict):
        return ["META.json must hold an object"]
    for key in REQUIRED - meta.keys():
        err(f"missing required key {key!r}")
    for key in meta.keys() - REQUIRED - OPTIONAL:
        if not custom(key):
            err(f"unknown key {key!r}")
    if "name" in meta and not term(meta["name"]):
        err("name must be a term (2+ characters, no slash, backslash, space or control character)")
    if "version" in meta and not (isinstance(meta["version"], str) and SEMVER.match(meta["version"])):
        err(f"version {meta.get('version')!r} is not a semantic version")
    for key in ("abstract", "description", "generated_by"):
        if key in meta and not (isinstance(meta[key], str) and meta[key]):
            err(f"{key} must be a non-empty string")
    m = meta.get("maintainer")
    if "maintainer" in meta and not ((isinstance(m, str) and m) or
                                     (isinstance(m, list) and m and all(isinstance(x, str) and x for x in m))):
        err("maintainer must be a string or a non-empty list of strings")
    lic = meta.get("license")
    if "license" in meta:
        ok = (isinstance(lic, str) and lic in LICENSES) or \
             (isinstance(lic, list) and lic and all(x in LICENSES for x in lic)) or \
             (isinstance(lic, dict) and lic and all(isinstance(v, str) and URI.match(v) for v in lic.values()))
        if not ok:
            err(f"license {lic!r} is neither a known license, a list of them, nor names with URIs")
    provides = meta.get("provides")
    if "provides" in meta:
        if not (isinstance(provides, dict) and provides):
            err("provides must be a non-empty object")
        else:
            for ext, info in provides.items():
                if not term(ext):
                    err(f"provides: {ext!r} is not a term")
                if not isinstance(info, dict):
                    err(f"provides.{ext} must be an object")
                    continue
                for key in info.keys() - {"file", "version", "abstract", "docfile"}:
                    if not custom(key):
                        err(f"provides.{ext}: unknown key {key!r}")
                if not relative_path(info.get("file")):
                    err(f"provides.{ext}.file must be a relative path")
                if not (isinstance(info.get("version"), str) and SEMVER.match(info["version"])):
                    err(f"provides.{ext}.version must be a semantic version")
                if "docfile" in info and not relative_path(info["docfile"]):
                    err(f"provides.{ext}.docfile must be a relative path")
                if "abstract" in info and not (isinstance(info["abstract"], str) and info["abstract"]):
                    err(f"provides.{ext}.abstract must be a non-empty string")
    spec = meta.get("meta-spec")
    if "meta-spec" in meta:
        if not isinstance(spec, dict) or spec.get("version") != "1.0.0":
            err("meta-spec must be an object with version 1.0.0")
        elif spec.keys() - {"version", "url"}:
            err(f"meta-spec: unknown keys {sorted(spec.keys() - {'version', 'url'})}")
        elif "url" in spec and not URI.match(spec["url"]):
            err("meta-spec.url must be a URI")
    tags = meta.get("tags")
    if "tags" in meta and not (isinstance(tags, list) and tags and
                               all(isinstance(t, str) and 1 <= len(t) <= 255 for t in tags)):
        err("tags must be a non-empty list of strings of 1 to 255 characters")
    if "release_status" in meta and meta["release_status"] not in ("stable", "testing", "unstable"):
        err("release_status must be stable, testing or unstable")
    no_index = meta.get("no_index")
    if "no_index" in meta:
        if not isinstance(no_index, dict) or no_index.keys() - {"file", "directory"} or not no_index:
            err("no_index must be an object of file and/or directory")
        else:
            for key, value in no_index.items():
                if not ((isinstance(value, str) and value) or
                        (isinstance(value, list) and value and all(isinstance(v, str) and v for v in value))):
                    err(f"no_index.{key} must be a string or a non-empty list of strings")
    prereqs = meta.get("prereqs")
    if "prereqs" in meta:
        if not isinstance(prereqs, dict) or not prereqs:
            err("prereqs must be a non-empty object")
        else:
            for phase, rels in prereqs.items():
                if phase not in ("configure", "build", "runtime", "test", "develop"):
                    err(f"prereqs: unknown phase {phase!r}")
                    continue
                if not isinstance(rels, dict) or not rels:
                    err(f"prereqs.{phase} must be a non-empty object")
                    continue
                for rel, reqs in rels.items():
                    if rel not in ("requires", "recommends", "suggests", "conflicts"):
                        err(f"prereqs.{phase}: unknown relationship {rel!r}")
                    elif not isinstance(reqs, dict) or not reqs:
                        err(f"prereqs.{phase}.{rel} must be a non-empty object")
                    else:
                        for name, rng in reqs.items():
                            if not term(name):
                                err(f"prereqs.{phase}.{rel}: {name!r} is not a term")
                            ok = (isinstance(rng, (int, float)) and rng == 0) or (
                                isinstance(rng, str) and all(RANGE.match(p) for p in rng.split(",")))
                            if not ok:
                                err(f"prereqs.{phase}.{rel}.{name}: {rng!r} is not a version range")
    resources = meta.get("resources")
    if "resources" in meta:
        if not isinstance(resources, dict) or not resources:
            err("resources must be a non-empty object")
        else:
            for key in resources.keys() - {"homepage", "bugtracker", "repository"}:
                if not custom(key):
                    err(f"resources: unknown key {key!r}")
    return errors


def check_tree(meta, root):
    errors = []
    makefile = open(os.path.join(root, "Makefile"), encoding="utf-8").read()
    extversion = re.search(r"^EXTVERSION\s*=\s*(\S+)", makefile, re.M).group(1)
    control = open(os.path.join(root, "simhash.control"), encoding="utf-8").read()
    default = re.search(r"default_version\s*=\s*'([^']+)'", control).group(1)
    semver = extversion + ".0" * (2 - extversion.count("."))
    if default != extversion:
        errors.append(f"simhash.control's default_version {default} is not the Makefile's {extversion}")
    if meta.get("version") != semver:
        errors.append(f"META.json's version {meta.get('version')} is not {semver} (EXTVERSION {extversion})")
    for ext, info in meta.get("provides", {}).items():
        if info.get("version") != semver:
            errors.append(f"provides.{ext}.version {info.get('version')} is not {semver}")
        for key in ("file", "docfile"):
            if key in info and not os.path.isfile(os.path.join(root, info[key])):
                errors.append(f"provides.{ext}.{key} {info[key]} is not a file of the tree")
    return errors


def broken_copies(meta):
    """Copies that break one rule each: the checker must refuse every one."""
    def without(key):
        m = copy.deepcopy(meta)
        del m[key]
        return m

    def with_(path, value):
        m = copy.deepcopy(meta)
        node = m
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
        return m

    ext = next(iter(meta["provides"]))
    return {
        "no name": without("name"),
        "no provides": without("provides"),
        "a name with a space": with_(["name"], "sim hash"),
        "version 1.3": with_(["version"], "1.3"),
        "license gpl": with_(["license"], "gpl"),
        "an unknown key": with_(["homepage"], "https://example.com"),
        "meta-spec 2.0.0": with_(["meta-spec", "version"], "2.0.0"),
        "an extension without file": with_(["provides", ext], {"version": meta["version"]}),
        "release_status beta": with_(["release_status"], "beta"),
        "an unknown prereq phase": with_(["prereqs"], {"install": {"requires": {"PostgreSQL": "15.0.0"}}}),
    }


def main():
    root = os.path.dirname(os.path.abspath(sys.argv[1]))
    meta = json.load(open(sys.argv[1], encoding="utf-8"))
    errors = check_spec(meta) + check_tree(meta, root)
    for e in errors:
        print(f"META.json: {e}")
    if "--self-test" in sys.argv:
        for what, broken in broken_copies(meta).items():
            if not check_spec(broken):
                errors.append(what)
                print(f"the checker accepted a copy with {what}")
    if not errors:
        print("META.json follows the PGXN Meta Spec 1.0.0 and agrees with the tree")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
