"""Where the lab's files are: the package sits in lab/ at the repository's top level, next to its data.

Standard library only: the `lab` command and kafka-service import this with any python3.
"""

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
LAB_DIR = PACKAGE_DIR.parent  # lab/: the command, kafka-service, kafka-dist/, scenarios/, site-vars.yml, README.md
REPO_ROOT = LAB_DIR.parent
VENV_BIN = REPO_ROOT / ".venv" / "bin"  # the tools the suites run: ansible-playbook, molecule, kafka-listeners
LAB_COMMAND = LAB_DIR / "lab"
KAFKA_SERVICE = LAB_DIR / "kafka-service"
SITE_VARS = LAB_DIR / "site-vars.yml"
SCENARIO_DIR = LAB_DIR / "scenarios"
DIST_DIR = LAB_DIR / "kafka-dist"
IMDS_EMULATOR = PACKAGE_DIR / "imds_emulator.py"
STANDIN_PACKAGE = PACKAGE_DIR / "kafka_standin"
STANDIN_MODULE = "kafkaops_lab.kafka_standin"  # `python -m` name; kafka-service puts LAB_DIR on PYTHONPATH
