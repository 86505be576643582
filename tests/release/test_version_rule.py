"""The version rule: galaxy.yml's version and the release notes agree (`make changelog-lint` runs this file).

galaxy.yml names either
- the newest release in changelogs/changelog.yaml, with no changelog fragment waiting: the commit a release is built
  from, whose tarball and CHANGELOG.rst list the same changes; or
- the next release, newer than every released version and at least the bump that the waiting fragments ask for
  under semantic versioning: the normal state between releases, in which fragments wait for that version.
So right after `antsibull-changelog release` of X, galaxy.yml moves on to the next version in a commit of its own.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from packaging.version import Version

REPO_ROOT = Path(__file__).resolve().parents[2]
FRAGMENTS = REPO_ROOT / "changelogs" / "fragments"

# The part of the version a waiting fragment's section asks to raise (below 1.0.0, a breaking change raises the
# minor version, as the 0.2.0 release summary says).
BREAKING = {"breaking_changes", "removed_features"}
FEATURES = {"major_changes", "minor_changes", "deprecated_features"}


def galaxy_version() -> Version:
    return Version(yaml.safe_load((REPO_ROOT / "galaxy.yml").read_text(encoding="utf-8"))["version"])


def released_versions() -> list[Version]:
    changelog = yaml.safe_load((REPO_ROOT / "changelogs" / "changelog.yaml").read_text(encoding="utf-8"))
    return sorted(Version(version) for version in changelog["releases"])


def waiting_fragments() -> dict[str, set[str]]:
    """{fragment file name: its sections}; only .yml and .yaml files are fragments (changelogs/config.yaml)."""
    return {path.name: set(yaml.safe_load(path.read_text(encoding="utf-8")) or ())
            for path in sorted(FRAGMENTS.iterdir()) if path.suffix in (".yml", ".yaml")}


def smallest_next(latest: Version, sections: set[str]) -> Version:
    major, minor, patch = latest.release[:3]
    if sections & BREAKING and major >= 1:
        return Version(f"{major + 1}.0.0")
    if sections & (BREAKING | FEATURES):
        return Version(f"{major}.{minor + 1}.0")
    return Version(f"{major}.{minor}.{patch + 1}")


def test_galaxy_version_is_the_newest_release_or_the_next_one():
    version, released, waiting = galaxy_version(), released_versions(), waiting_fragments()
    latest = released[-1]
    if version in released:
        assert version == latest, f"galaxy.yml names {version}, but {latest} is already released: set the next version"
        assert not waiting, (
            f"galaxy.yml names {version}, which is released, while fragments wait for the next release: "
            f"{sorted(waiting)}; set galaxy.yml's version to the next release (see README, Releases)")
        return
    assert version > latest, f"galaxy.yml names {version}, older than the released {latest}"
    sections = set().union(*waiting.values())
    needed = smallest_next(latest, sections)
    assert version >= needed, (
        f"the waiting fragments have {sorted(sections & (BREAKING | FEATURES))}, which semantic versioning releases "
        f"as {needed} or later after {latest}; galaxy.yml names {version}")


def test_changelog_rst_has_every_release():
    headings = set(re.findall(r"^v(\S+)\n=+$", (REPO_ROOT / "CHANGELOG.rst").read_text(encoding="utf-8"), re.M))
    assert {Version(heading) for heading in headings} == set(released_versions()), \
        "CHANGELOG.rst and changelogs/changelog.yaml name different releases: run antsibull-changelog generate"


def test_quick_start_installs_the_newest_release():
    latest = released_versions()[-1]
    quickstart = (REPO_ROOT / "docs" / "docsite" / "rst" / "quickstart.rst").read_text(encoding="utf-8")
    stale = {name for name in re.findall(r"kafkaops-listeners-([0-9][^ ]*)\.tar\.gz|\.git,([0-9][^' ]*)'", quickstart)
             for name in name if name and Version(name) != latest}
    assert not stale, f"the quick start installs {sorted(stale)}, not the newest release {latest}"
