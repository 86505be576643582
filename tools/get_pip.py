# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Offline stand-in for the get-pip.py script that ansible-test downloads.

ansible-test bootstraps pip in its throw-away virtualenvs by running a get-pip script fetched from a host this
machine cannot reach; it first looks for a cached copy at ~/.ansible/test/cache/get_pip_<version>.py, which is
where `make` installs this file. It does the same job from PyPI alone: ensurepip, then pip installs exactly the
packages ansible-test asked for.
"""

import subprocess
import sys


def main() -> int:
    args = [arg for arg in sys.argv[1:] if arg not in ("--no-setuptools", "--no-wheel")]
    subprocess.run([sys.executable, "-m", "ensurepip", "--default-pip"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-m", "pip", "install", "--upgrade", "--force-reinstall", *args], check=True)
    if "--no-setuptools" in sys.argv[1:]:
        # ensurepip may have brought setuptools along; ansible-test asked for a venv without it
        subprocess.run([sys.executable, "-m", "pip", "uninstall", "--yes", "--quiet", "setuptools"], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
