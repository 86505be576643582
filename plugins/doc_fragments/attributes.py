# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations


class ModuleDocFragment:
    """Descriptions of the attributes the collection's modules declare, and the platform every one of them runs on."""

    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in C(check_mode) and return the changed status it predicts without modifying the target.
  diff_mode:
    description: Returns details on what has changed (or would change in C(check_mode)) when in diff mode.
  idempotent:
    description:
      - When run twice in a row with the same arguments, the second run reports no change and changes nothing.
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: posix
"""

    FILES = r"""
options: {}
attributes:
  safe_file_operations:
    description: Uses Ansible's strict file operation functions to ensure proper permissions and avoid data corruption.
"""

    # A module that only reads (facts, lookups, checks): the same answer in check mode, nothing to diff, no change
    READ_ONLY = r"""
options: {}
attributes:
  check_mode:
    support: full
    details:
      - The module only reads, so it makes the same requests and checks, and returns the same values, in check mode.
  diff_mode:
    support: N/A
    details:
      - The module changes nothing, so there is nothing to diff.
  idempotent:
    support: full
    details:
      - The module changes nothing and never reports a change.
"""
