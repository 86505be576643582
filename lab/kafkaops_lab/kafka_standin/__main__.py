"""``python -m kafkaops_lab.kafka_standin`` and ``python lab/kafkaops_lab/kafka_standin`` both start the stand-in."""

import sys
from pathlib import Path

if __package__:
    from .server import main
else:
    # Run as a directory: import the package by its own name, from the folder that holds it.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from kafka_standin.server import main

if __name__ == "__main__":
    sys.exit(main())
