#!/usr/bin/env python3
"""Prints the requirements of a Python project and of its named extras, one per line:
what scripts/test.sh installs before it loads the extension the workspace build made.

    scripts/py-deps.py crates/ssdlab-py/pyproject.toml test
"""
import sys

try:
    import tomllib
except ImportError:  # Python 3.10: the copy pip carries
    from pip._vendor import tomli as tomllib


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        project = tomllib.load(f)["project"]
    reqs = list(project.get("dependencies", []))
    extras = project.get("optional-dependencies", {})
    for name in sys.argv[2:]:
        if name not in extras:
            sys.exit(f"{sys.argv[1]}: no extra `{name}` (extras: {', '.join(extras)})")
        reqs += [r for r in extras[name] if r not in reqs]
    print("\n".join(reqs))


if __name__ == "__main__":
    main()
