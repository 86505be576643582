# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Instance metadata lookup: which cloud this is, and the instance's addresses and names as that cloud reports them.

Private to kafkaops.listeners: no compatibility promise outside the collection.

``lookup_instance_metadata()`` is the backend of the ``instance_metadata`` module. With provider ``auto`` it reads
DMI first and opens no socket at all when no cloud signature is found. Each provider's client lives in its own
file; all of them use the bounded HTTP client and return every value checked (see ``checks``).
"""

from __future__ import annotations

import os

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.checks import FIELDS, result
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.detect import (
    DEFAULT_DMI_PATH,
    HYPERVISOR_UUID_PATH,
    detect_provider,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.endpoint import parse_endpoint
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.errors import MetadataError, ParameterError

DEFAULT_ENDPOINT = "http://169.254.169.254"
DEFAULT_TIMEOUT = 1.0
DEFAULT_TOTAL_TIMEOUT = 5.0
PROVIDERS = ("aws", "gcp", "azure", "openstack", "digitalocean", "oci", "hetzner")
PROVIDER_CHOICES = ("auto",) + PROVIDERS + ("none",)
#: The options of a module that asks the metadata service (documented by the instance_metadata doc fragment)
METADATA_ARGUMENT_SPEC = {
    "provider": {"type": "str", "default": "auto", "choices": list(PROVIDER_CHOICES)},
    "endpoint": {"type": "str", "default": DEFAULT_ENDPOINT},
    "timeout": {"type": "float", "default": DEFAULT_TIMEOUT},
    "total_timeout": {"type": "float", "default": DEFAULT_TOTAL_TIMEOUT},
    "allow_imdsv1": {"type": "bool", "default": False},
    "dmi_path": {"type": "path", "default": DEFAULT_DMI_PATH},
}

__all__ = (
    "DEFAULT_DMI_PATH",
    "DEFAULT_ENDPOINT",
    "DEFAULT_TIMEOUT",
    "DEFAULT_TOTAL_TIMEOUT",
    "FIELDS",
    "METADATA_ARGUMENT_SPEC",
    "PROVIDERS",
    "PROVIDER_CHOICES",
    "MetadataError",
    "fetch_metadata",
    "lookup_instance_metadata",
)


def _fetcher(provider: str):
    """The provider's ``fetch(client, allow_imdsv1)``.

    Imported on demand, so an off-cloud lookup loads no HTTP code. The imports are plain statements (not importlib)
    because Ansible's module packer finds module_utils by reading them.
    """
    if provider == "aws":
        from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.aws import fetch
    elif provider == "gcp":
        from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.gcp import fetch
    elif provider == "azure":
        from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.azure import fetch
    elif provider == "openstack":
        from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.openstack import fetch
    elif provider == "digitalocean":
        from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.digitalocean import fetch
    elif provider == "oci":
        from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.oci import fetch
    elif provider == "hetzner":
        from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.hetzner import fetch
    else:
        raise ParameterError("provider %r: expected one of %s" % (provider, ", ".join(PROVIDERS)))
    return fetch


def fetch_metadata(provider: str, endpoint: str = DEFAULT_ENDPOINT, timeout: float = DEFAULT_TIMEOUT,
                   total_timeout: float = DEFAULT_TOTAL_TIMEOUT, allow_imdsv1: bool = False) -> tuple[dict, list]:
    """Ask ``provider``'s metadata service at ``endpoint``; return (checked result record, warnings).

    Raises MetadataError (a subclass saying which kind of failure) with a message for the user.
    """
    fetch = _fetcher(provider)
    from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.http_client import BoundedClient

    client = BoundedClient(provider, endpoint, timeout, total_timeout)
    return fetch(client, allow_imdsv1=allow_imdsv1)


def lookup_instance_metadata(params: dict) -> tuple[dict, list[str]]:
    """The module's work, from its params: (instance_metadata record, warnings); raise MetadataError.

    ``provider: auto`` detects the cloud from DMI; the machine's hypervisor uuid (AWS Xen) is consulted only with
    the default ``dmi_path``, since a custom DMI directory describes a different (lab) machine. No signature,
    or ``provider: none``, gives a record of nulls without any network access.
    """
    provider = params.get("provider") or "auto"
    endpoint = params.get("endpoint") or DEFAULT_ENDPOINT
    parse_endpoint(endpoint)  # a bad endpoint is reported even where it would not be used
    warnings: list[str] = []
    if provider == "auto":
        dmi_path = params.get("dmi_path") or DEFAULT_DMI_PATH
        default_dmi = os.path.normpath(dmi_path) == DEFAULT_DMI_PATH
        detection = detect_provider(dmi_path, HYPERVISOR_UUID_PATH if default_dmi else None)
        provider = detection.provider
        if provider == "none" and "product_uuid" in detection.unreadable:
            warnings.append("%s/product_uuid is not readable (AWS Nitro instances are recognised by it): run as root "
                            "(become) or set provider explicitly" % dmi_path)
    if provider == "none":
        return result("none"), warnings
    record, fetch_warnings = fetch_metadata(
        provider,
        endpoint,
        params.get("timeout", DEFAULT_TIMEOUT),
        params.get("total_timeout", DEFAULT_TOTAL_TIMEOUT),
        bool(params.get("allow_imdsv1")),
    )
    return record, warnings + fetch_warnings
