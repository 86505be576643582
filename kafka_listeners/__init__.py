"""Command-line tools of the kafkaops.listeners collection (they import the collection's module_utils)."""
