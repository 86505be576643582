# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Which cloud this machine runs on, from its DMI (SMBIOS) strings alone: no network access.

Private to kafkaops.listeners: no compatibility promise outside the collection.

The rules are the ones cloud-init's ds-identify applies to /sys/class/dmi/id, so a machine is recognised exactly
when cloud-init would recognise it, with one addition for a process without root, which cannot read an AWS Nitro
instance's product_uuid: there the system vendor "Amazon EC2" recognises AWS. Anything else is "none": off-cloud
the lookup must not open a single socket (on a laptop 169.254.169.254 may be someone else's device).
"""

from __future__ import annotations

import os

DEFAULT_DMI_PATH = "/sys/class/dmi/id"
# Xen-based EC2 instances show an "ec2..." uuid here; it sits outside the DMI directory.
HYPERVISOR_UUID_PATH = "/sys/hypervisor/uuid"
AZURE_CHASSIS_ASSET_TAG = "7783-7084-3265-9085-8269-3286-77"
DMI_FILES = ("sys_vendor", "product_name", "product_uuid", "chassis_asset_tag")
# Enough for any DMI string (SMBIOS strings are short); a huge file is not a DMI string.
_MAX_READ = 4096


class Detection:
    """The outcome of detection: ``provider`` ("none" when no rule matched), the ``evidence`` that decided it,
    and ``unreadable`` DMI files that exist but could not be read (product_uuid is root-only on most systems)."""

    def __init__(self, provider: str, evidence: str, unreadable: tuple[str, ...] = ()) -> None:
        self.provider = provider
        self.evidence = evidence
        self.unreadable = unreadable


def _read_first_line(path: str) -> str | None:
    """The file's first line, stripped; None when it does not exist. PermissionError propagates."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(_MAX_READ)
    except FileNotFoundError:
        return None
    except PermissionError:
        raise
    except OSError:
        return None  # a directory, an I/O error from the firmware table: no usable value
    return data.decode("utf-8", "replace").split("\n", 1)[0].strip()


def read_dmi(dmi_path: str) -> tuple[dict[str, str | None], tuple[str, ...]]:
    """Return ({file: value or None}, unreadable file names) for the DMI files detection looks at."""
    values: dict[str, str | None] = {}
    unreadable = []
    for name in DMI_FILES:
        try:
            values[name] = _read_first_line(os.path.join(dmi_path, name))
        except PermissionError:
            values[name] = None
            unreadable.append(name)
    return values, tuple(unreadable)


def _starts_with_ec2(value: str | None) -> bool:
    return value is not None and value[:3].lower() == "ec2"


def detect_provider(dmi_path: str = DEFAULT_DMI_PATH, hypervisor_uuid_path: str | None = None) -> Detection:
    """Return the cloud whose DMI signature this machine carries, or provider "none".

    ``hypervisor_uuid_path`` (usually HYPERVISOR_UUID_PATH) is consulted for AWS Xen instances; pass None to
    judge by the DMI directory alone, as for a lab node's own DMI directory.
    """
    dmi, unreadable = read_dmi(dmi_path)
    rules = (
        ("azure", "chassis_asset_tag", lambda v: v == AZURE_CHASSIS_ASSET_TAG),
        ("oci", "chassis_asset_tag", lambda v: v == "OracleCloud.com"),
        ("gcp", "product_name", lambda v: v == "Google Compute Engine"),
        ("openstack", "product_name", lambda v: v in ("OpenStack Nova", "OpenStack Compute")),
        ("digitalocean", "sys_vendor", lambda v: v == "DigitalOcean"),
        ("hetzner", "sys_vendor", lambda v: v == "Hetzner"),
        ("aws", "product_uuid", _starts_with_ec2),
    )
    for provider, name, matches in rules:
        value = dmi[name]
        if value is not None and matches(value):
            return Detection(provider, "%s/%s is %r" % (dmi_path, name, value), unreadable)
    if hypervisor_uuid_path is not None:
        try:
            hv_uuid = _read_first_line(hypervisor_uuid_path)
        except PermissionError:
            hv_uuid = None
        if _starts_with_ec2(hv_uuid):
            return Detection("aws", "%s is %r" % (hypervisor_uuid_path, hv_uuid), unreadable)
    # A Nitro instance's product_uuid is root-only: a login user without root reads only its vendor string, which
    # AWS's firmware alone sets (systemd-detect-virt recognises EC2 by it too). A readable uuid still decides.
    if "product_uuid" in unreadable and dmi["sys_vendor"] == "Amazon EC2":
        return Detection("aws", "%s/sys_vendor is 'Amazon EC2' (product_uuid is not readable)" % dmi_path,
                         unreadable)
    return Detection("none", "no cloud signature in %s" % dmi_path, unreadable)
