# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""DMI detection per provider, and the off-cloud guarantee: provider none, all nulls, not one socket."""

from __future__ import annotations

import socket

import pytest
from metadata_lab import DMI, RESULT_FIELDS, VALUES, expected, within_hang_guard, write_dmi

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import (
    detect,
    lookup_instance_metadata,
)


@pytest.mark.parametrize("provider", sorted(DMI))
def test_each_provider_is_detected_from_its_dmi_strings(provider, tmp_path):
    dmi = write_dmi(tmp_path / "dmi", DMI[provider])
    detection = detect.detect_provider(str(dmi), hypervisor_uuid_path=None)
    assert detection.provider == provider
    assert str(dmi) in detection.evidence


@pytest.mark.parametrize("product_name", ["OpenStack Nova", "OpenStack Compute"])
def test_both_openstack_product_names(product_name, tmp_path):
    dmi = write_dmi(tmp_path / "dmi", {"product_name": product_name})
    assert detect.detect_provider(str(dmi)).provider == "openstack"


def test_aws_product_uuid_prefix_is_case_insensitive(tmp_path):
    dmi = write_dmi(tmp_path / "dmi", {"product_uuid": "EC2E1916-9099-7CAF-FD21-012345ABCDEF"})
    assert detect.detect_provider(str(dmi)).provider == "aws"


def test_aws_xen_is_detected_from_the_hypervisor_uuid(tmp_path):
    dmi = write_dmi(tmp_path / "dmi", {"sys_vendor": "Xen", "product_name": "HVM domU", "product_uuid": "not-it"})
    hv_uuid = tmp_path / "hypervisor_uuid"
    hv_uuid.write_text("ec2a8c5c-1f0d-4b6e-9a7f-3c2d1e0f9a8b\n", encoding="utf-8")
    detection = detect.detect_provider(str(dmi), hypervisor_uuid_path=str(hv_uuid))
    assert detection.provider == "aws"
    assert str(hv_uuid) in detection.evidence
    # without the hypervisor file the same DMI is not a cloud
    assert detect.detect_provider(str(dmi), hypervisor_uuid_path=None).provider == "none"


@pytest.mark.parametrize(
    "strings",
    [
        {},  # empty directory
        {"sys_vendor": "QEMU", "product_name": "Standard PC (Q35 + ICH9, 2009)", "product_uuid": "0f1e2d3c-4b5a"},
        # "Amazon EC2" vendor alone is not ds-identify's AWS signature: the uuid must start with ec2
        {"sys_vendor": "Amazon EC2", "product_uuid": "1f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"},
        {"chassis_asset_tag": "7783-7084-3265-9085-8269-3286-78"},  # one digit off the Azure tag
        {"product_name": "Google Compute Engine (not really)"},
        {"sys_vendor": "digitalocean"},  # ds-identify compares exactly
    ],
)
def test_non_cloud_dmi_is_provider_none(strings, tmp_path):
    dmi = write_dmi(tmp_path / "dmi", strings)
    assert detect.detect_provider(str(dmi), hypervisor_uuid_path=None).provider == "none"


def unreadable_product_uuid(monkeypatch):
    """product_uuid raises PermissionError, as for a login user without root on an AWS Nitro instance."""
    real_read = detect._read_first_line

    def read(path):  # the tests run as root, where chmod cannot make a file unreadable
        if path.endswith("product_uuid"):
            raise PermissionError(13, "Permission denied", path)
        return real_read(path)

    monkeypatch.setattr(detect, "_read_first_line", read)


def test_without_root_an_aws_nitro_instance_is_recognised_by_its_vendor(tmp_path, monkeypatch):
    dmi = write_dmi(tmp_path / "dmi", {"sys_vendor": "Amazon EC2", "product_name": "m5.large",
                                       "product_uuid": "ec2e1916-9099"})
    unreadable_product_uuid(monkeypatch)
    detection = detect.detect_provider(str(dmi), hypervisor_uuid_path=None)
    assert (detection.provider, detection.unreadable) == ("aws", ("product_uuid",))
    assert detection.evidence == "%s/sys_vendor is 'Amazon EC2' (product_uuid is not readable)" % dmi


def test_unreadable_product_uuid_is_reported(tmp_path, monkeypatch):
    dmi = write_dmi(tmp_path / "dmi", {"sys_vendor": "Xen", "product_uuid": "ec2e1916-9099"})
    unreadable_product_uuid(monkeypatch)
    detection = detect.detect_provider(str(dmi))
    assert detection.provider == "none"
    assert detection.unreadable == ("product_uuid",)
    record, warnings = lookup_instance_metadata({"provider": "auto", "dmi_path": str(dmi)})
    assert record["provider"] == "none"
    assert warnings == ["%s/product_uuid is not readable (AWS Nitro instances are recognised by it): run as root "
                        "(become) or set provider explicitly" % dmi]


# -- off-cloud: no socket at all ----------------------------------------------------------------------------------


@pytest.fixture()
def no_sockets(monkeypatch):
    """Make creating any socket fail the test: off-cloud detection must not touch the network."""

    def refuse(*args, **kwargs):
        raise AssertionError("a socket was opened: %r %r" % (args, kwargs))

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize("layout", ["empty", "absent"])
def test_off_cloud_auto_returns_nulls_and_opens_no_socket(layout, tmp_path, no_sockets):
    dmi = tmp_path / "dmi"
    if layout == "empty":
        dmi.mkdir()
    record, warnings = lookup_instance_metadata({"provider": "auto", "dmi_path": str(dmi)})
    assert record == dict.fromkeys(RESULT_FIELDS, None) | {"provider": "none"}
    assert warnings == []


def test_provider_none_opens_no_socket(tmp_path, no_sockets):
    dmi = write_dmi(tmp_path / "dmi", DMI["aws"])  # even on a cloud machine, none means none
    record = lookup_instance_metadata({"provider": "none", "dmi_path": str(dmi)})[0]
    assert record["provider"] == "none"
    assert all(record[field] is None for field in RESULT_FIELDS if field != "provider")


def test_bad_endpoint_is_reported_even_off_cloud(tmp_path, no_sockets):
    from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.errors import ParameterError

    with pytest.raises(ParameterError):
        lookup_instance_metadata({"provider": "auto", "dmi_path": str(tmp_path), "endpoint": "ftp://x"})


@pytest.mark.parametrize("provider", ["gcp", "oci"])
def test_auto_detects_then_fetches(provider, tmp_path, imds, values):
    imds.serve(values[provider])
    dmi = write_dmi(tmp_path / "dmi", DMI[provider])
    params = {"provider": "auto", "dmi_path": str(dmi), "endpoint": imds.endpoint, "timeout": 5.0,
              "total_timeout": 20.0, "allow_imdsv1": False}
    record, warnings = within_hang_guard(lookup_instance_metadata, params)
    assert record == expected(provider, VALUES[provider])
    assert warnings == []
