"""The metadata emulator's input files: the instance's values and the fault to inject, read and validated.

The schemas are documented in lab/README.md ("Instance metadata emulator"); every error names the file and the key.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
from dataclasses import dataclass
from typing import Any

PROVIDERS = ("aws", "gcp", "azure", "openstack", "digitalocean", "oci", "hetzner")
FAULTS = (None, "down", "slow", "token_refused", "garbage")
DEFAULT_SLOW_SECONDS = 5.0

REQUIRED_VALUE_KEYS = (
    "provider",
    "instance_id",
    "region",
    "zone",
    "private_ip",
    "private_dns",
    "public_ip",
    "public_dns",
    "network_id",
    "hostname",
    "mac",
)
# Optional keys; anything else is rejected so a typo in the lab's values file fails loudly.
OPTIONAL_VALUE_KEYS = ("project_id", "project_number", "imdsv1", "region_code", "vnic_id")
NULLABLE_VALUE_KEYS = ("public_ip", "public_dns")
GCP_NETWORK_RE = re.compile(r"^projects/(\d+)/networks/[^/]+$")  # a full network path
MAC_RE = re.compile(r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$")


class ConfigError(ValueError):
    """A values or control file is unreadable or breaks its schema; the message names the file and the key."""


@dataclass(frozen=True)
class Values:
    """One instance's metadata, validated. See README for what each provider serves from which key."""

    provider: str
    instance_id: str
    region: str
    zone: str
    private_ip: str
    private_dns: str
    public_ip: str | None
    public_dns: str | None
    network_id: str
    hostname: str
    mac: str
    project_id: str | None = None
    project_number: str | None = None
    imdsv1: bool = False
    region_code: str | None = None
    vnic_id: str | None = None


@dataclass(frozen=True)
class Control:
    """The fault to inject on the next request (None = behave like the real service)."""

    fault: str | None = None
    slow_seconds: float = DEFAULT_SLOW_SECONDS


def _read_json_object(path: str, what: str) -> dict[str, Any]:
    """Return the JSON object stored in `path`; raise ConfigError naming the file if it is not one."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise ConfigError(f"{what} file {path}: cannot read it: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{what} file {path}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{what} file {path}: must hold a JSON object, found {type(data).__name__}")
    return data


def load_values(path: str) -> Values:
    """Read and validate the values file; raise ConfigError naming the file and the offending key."""
    data = _read_json_object(path, "values")

    def fail(key: str, problem: str) -> ConfigError:
        return ConfigError(f"values file {path}: key {key!r} {problem}")

    unknown = sorted(set(data) - set(REQUIRED_VALUE_KEYS) - set(OPTIONAL_VALUE_KEYS))
    if unknown:
        raise ConfigError(
            f"values file {path}: unknown keys {unknown}; allowed: {sorted(REQUIRED_VALUE_KEYS + OPTIONAL_VALUE_KEYS)}"
        )
    missing = [key for key in REQUIRED_VALUE_KEYS if key not in data]
    if missing:
        raise ConfigError(f"values file {path}: missing required keys {missing}")
    for key in REQUIRED_VALUE_KEYS + ("project_id", "project_number", "region_code", "vnic_id"):
        value = data.get(key)
        if value is None and (key in NULLABLE_VALUE_KEYS or key not in REQUIRED_VALUE_KEYS):
            continue  # nullable or optional and absent
        if not isinstance(value, str) or not value:
            nullable = " or null" if key in NULLABLE_VALUE_KEYS else ""
            raise fail(key, f"must be a non-empty string{nullable}, found {value!r}")
    if data["provider"] not in PROVIDERS:
        raise fail("provider", f"must be one of {list(PROVIDERS)}, found {data['provider']!r}")
    for key in ("private_ip", "public_ip"):
        if data[key] is None:
            continue
        try:
            ipaddress.IPv4Address(data[key])
        except ValueError:
            raise fail(key, f"must be an IPv4 address, found {data[key]!r}") from None
    if not MAC_RE.match(data["mac"]):
        raise fail("mac", f"must look like 0a:1b:2c:3d:4e:5f, found {data['mac']!r}")
    if "imdsv1" in data and not isinstance(data["imdsv1"], bool):
        raise fail("imdsv1", f"must be true or false, found {data['imdsv1']!r}")
    if data["provider"] == "gcp" and not data.get("project_id"):
        raise fail("project_id", "is required when provider is 'gcp'")
    number = data.get("project_number")
    if number is not None and not number.isdigit():
        raise fail("project_number", f"must be a string of digits, found {number!r}")
    in_network = GCP_NETWORK_RE.match(data["network_id"])
    if number is not None and in_network and in_network.group(1) != number:
        raise fail("project_number", f"is {number!r} but network_id names project {in_network.group(1)!r}")
    kwargs = {key: data[key] for key in REQUIRED_VALUE_KEYS}  # public_ip/public_dns may be None
    kwargs.update({key: data[key] for key in OPTIONAL_VALUE_KEYS if data.get(key) is not None})
    return Values(**kwargs)


def load_control(path: str | None) -> Control:
    """Read the control file; no --control or a file that does not exist (yet) means no fault."""
    if path is None or not os.path.exists(path):
        return Control()
    data = _read_json_object(path, "control")
    unknown = sorted(set(data) - {"fault", "slow_seconds"})
    if unknown:
        raise ConfigError(f"control file {path}: unknown keys {unknown}; allowed: ['fault', 'slow_seconds']")
    fault = data.get("fault")
    if fault not in FAULTS:
        raise ConfigError(f"control file {path}: key 'fault' must be one of {list(FAULTS)}, found {fault!r}")
    slow = data.get("slow_seconds", DEFAULT_SLOW_SECONDS)
    if isinstance(slow, bool) or not isinstance(slow, int | float) or slow < 0:
        raise ConfigError(f"control file {path}: key 'slow_seconds' must be a number >= 0, found {slow!r}")
    return Control(fault=fault, slow_seconds=float(slow))
