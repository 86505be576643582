"""The command-line tools' distribution as users install it (pyproject.toml, setup.py).

Its wheel and sdist are built once (`python3 -m build`) from a copy of the sources (an in-tree build would leave
build/ and egg-info here), then installed into clean venvs of the oldest Python it promises (3.9, pyenv's) and of
this one, with no Ansible: the commands run, and site-packages holds no `ansible_collections/` tree. Beside
Ansible, in one venv, `ansible-galaxy collection list` lists no partial kafkaops.listeners.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, run

SOURCES = ("kafka_listeners", "audit/kafka_listeners_audit", "plugins/module_utils", "pyproject.toml", "setup.py",
           "MANIFEST.in", "galaxy.yml")
OLDEST = "3.9"
PIP = ("-m", "pip", "install", "--quiet", "--disable-pip-version-check")


def python(version: str) -> Path:
    if sys.version.startswith(version + "."):
        return Path(sys.executable)
    found = sorted(Path("/root/.pyenv/versions").glob(f"{version}.*/bin/python"))
    if not found:
        if os.environ.get("CI"):
            pytest.fail(f"no Python {version} under /root/.pyenv/versions")
        pytest.skip(f"no Python {version} under /root/.pyenv/versions")
    return found[-1]


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    """{"wheel": ..., "sdist": ...} built with `python -m build` from a copy of the sources."""
    source = tmp_path_factory.mktemp("tools-source")
    for part in SOURCES:
        if (REPO_ROOT / part).is_dir():
            shutil.copytree(REPO_ROOT / part, source / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(REPO_ROOT / part, source / part)
    out = tmp_path_factory.mktemp("tools-dist")
    built = run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", out, source], env=dict(os.environ),
                cwd=source)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheels, sdists = list(out.glob("*.whl")), list(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0]}


def venv(interpreter: Path, where: Path, *requirements) -> Path:
    """A clean venv made by `interpreter` with `requirements` installed; its bin folder."""
    made = run([interpreter, "-m", "venv", where], env=dict(os.environ), cwd=where.parent)
    assert made.returncode == 0, made.stderr
    pip = run([where / "bin" / "python", *PIP, *requirements], env=dict(os.environ), cwd=where.parent)
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    return where / "bin"


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
@pytest.mark.parametrize("version", [OLDEST, f"{sys.version_info[0]}.{sys.version_info[1]}"])
def test_tools_install_and_run_without_ansible(dists, kind, version, tmp_path):
    bin_dir = venv(python(version), tmp_path / "venv", dists[kind])
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    no_ansible = run([bin_dir / "python", "-c", "import ansible"], env=env, cwd=tmp_path)
    assert "No module named 'ansible'" in no_ansible.stderr
    site = run([bin_dir / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], env=env,
               cwd=tmp_path).stdout.strip()
    assert not (Path(site) / "ansible_collections").exists(), f"{kind} plants ansible_collections/ in {site}"
    usage = run([bin_dir / "kafka-listeners", "doctor", "--help"], env=env, cwd=tmp_path)
    assert usage.returncode == 0 and "usage: kafka-listeners doctor" in usage.stdout, usage.stdout + usage.stderr
    with socket.socket() as sock:  # a loopback port nothing listens on: the bootstrap fails, exit 3
        sock.bind(("127.0.0.1", 0))
        closed = "127.0.0.1:%d" % sock.getsockname()[1]
    doctor = run([bin_dir / "kafka-listeners", "doctor", closed], env=env, cwd=tmp_path)
    assert doctor.returncode == 3, doctor.stdout + doctor.stderr
    assert "bootstrap server %s did not answer Metadata" % closed in doctor.stdout
    lint = run([bin_dir / "kafka-listeners-lint", REPO_ROOT / "tests/cli/fixtures/broken-same-port.properties"],
               env=env, cwd=tmp_path)
    assert lint.returncode == 1 and "R" in lint.stdout, lint.stdout + lint.stderr


def test_tools_beside_ansible_plant_no_partial_collection(dists, tmp_path):
    """One venv with ansible-core and the tools' wheel: Ansible lists no kafkaops.listeners (the repository's own
    packaging before 0.3.0 planted module_utils as one, listed as `kafkaops.listeners *` with a warning)."""
    import ansible

    bin_dir = venv(Path(sys.executable), tmp_path / "venv", dists["wheel"], f"ansible-core=={ansible.__version__}")
    config = tmp_path / "ansible.cfg"
    config.write_text("[defaults]\n", encoding="utf-8")
    empty = tmp_path / "collections"
    empty.mkdir()
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path), "ANSIBLE_CONFIG": str(config),
           "ANSIBLE_COLLECTIONS_PATH": str(empty), "ANSIBLE_COLLECTIONS_SCAN_SYS_PATH": "true"}

    def listed() -> dict:
        proc = run([bin_dir / "ansible-galaxy", "collection", "list", "--format", "json"], env=env, cwd=tmp_path)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return {name for path in json.loads(proc.stdout).values() for name in path}

    assert "kafkaops.listeners" not in listed()
    # the check can fail: a module_utils folder planted under the venv's site-packages is listed
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    (site / "ansible_collections" / "kafkaops" / "listeners" / "plugins" / "module_utils").mkdir(parents=True)
    assert "kafkaops.listeners" in listed()
