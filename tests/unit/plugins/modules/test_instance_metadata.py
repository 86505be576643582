# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The instance_metadata module run through main() with module args, against the lab emulator on 127.0.0.1."""

from __future__ import annotations

import importlib.util
import socket
import sys
from pathlib import Path

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kafkaops.listeners.plugins.modules import instance_metadata

# Shared helpers (emulator process, link-local guard, values) live with the module_utils tests; load them by path.
_HELPERS = Path(__file__).resolve().parents[1] / "module_utils" / "metadata" / "metadata_lab.py"
_spec = importlib.util.spec_from_file_location("metadata_lab", _HELPERS)
lab = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("metadata_lab", lab)
_spec.loader.exec_module(lab)


# the link-local guard (autouse) and the emulator, as the metadata client tests have them
no_link_local, emulator_process, imds = lab.no_link_local, lab.emulator_process, lab.imds


def run(args: dict):
    """Run the module's main() with these args; return ("exit"|"fail", the keyword arguments)."""
    with patch_module_args(args), pytest.raises(SystemExit) as ended:  # see conftest.py
        lab.within_hang_guard(instance_metadata.main)
    return ended.value.code[:2]


@pytest.mark.parametrize("provider", ["aws", "azure", "hetzner"])
def test_returns_metadata_and_the_fact(provider, imds):
    imds.serve(lab.VALUES[provider])
    outcome, result = run({"provider": provider, "endpoint": imds.endpoint, "timeout": 5, "total_timeout": 20})
    assert outcome == "exit"
    assert result["changed"] is False
    assert result["instance_metadata"] == lab.expected(provider, lab.VALUES[provider])
    assert result["ansible_facts"] == {"kafka_instance": result["instance_metadata"]}


def test_check_mode_returns_the_same(imds):
    imds.serve(lab.VALUES["gcp"])
    outcome, result = run({"provider": "gcp", "endpoint": imds.endpoint, "timeout": 5, "total_timeout": 20,
                           "_ansible_check_mode": True})
    assert outcome == "exit"
    assert result["changed"] is False
    assert result["instance_metadata"] == lab.expected("gcp", lab.VALUES["gcp"])


def test_auto_detects_from_the_dmi_path(imds, tmp_path):
    imds.serve(lab.VALUES["openstack"])
    dmi = lab.write_dmi(tmp_path / "dmi", lab.DMI["openstack"])
    outcome, result = run({"dmi_path": str(dmi), "endpoint": imds.endpoint, "timeout": 5, "total_timeout": 20})
    assert outcome == "exit"
    assert result["instance_metadata"] == lab.expected("openstack", lab.VALUES["openstack"])


def test_off_cloud_returns_nulls_without_a_socket(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a socket was opened off-cloud")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    outcome, result = run({"dmi_path": str(tmp_path / "no-such-dmi")})
    assert outcome == "exit"
    assert result["instance_metadata"] == dict.fromkeys(lab.RESULT_FIELDS, None) | {"provider": "none"}
    assert result["ansible_facts"]["kafka_instance"]["provider"] == "none"


def test_imdsv1_fallback_warns(imds):
    node = dict(lab.VALUES["aws"], imdsv1=True)
    imds.serve(node)
    imds.fault("token_refused")
    warnings = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(basic.AnsibleModule, "warn", lambda self, text: warnings.append(text))
        outcome, result = run({"provider": "aws", "endpoint": imds.endpoint, "allow_imdsv1": True, "timeout": 5,
                               "total_timeout": 20})
    assert outcome == "exit"
    assert result["instance_metadata"] == lab.expected("aws", node)
    assert len(warnings) == 1 and "allow_imdsv1=true" in warnings[0]


@pytest.mark.parametrize(
    ("fault", "provider", "expected_text"),
    [
        ("token_refused", "aws", "aws instance metadata refused an IMDSv2 session token (HTTP 403 on PUT"),
        ("down", "digitalocean", "digitalocean instance metadata endpoint %(endpoint)s is unreachable"),
        ("slow", "oci", "no answer within 0.3 s (timeout 0.3 s per request, total_timeout 10 s)"),
        ("garbage", "hetzner", "hetzner metadata GET /hetzner/v1/metadata/"),
    ],
)
def test_faults_fail_with_a_clear_message(fault, provider, expected_text, imds):
    imds.serve(lab.VALUES[provider])
    imds.fault(fault, slow_seconds=5 if fault == "slow" else None)
    outcome, result = run({"provider": provider, "endpoint": imds.endpoint, "timeout": 0.3 if fault == "slow" else 5,
                           "total_timeout": 10})
    imds.fault(None)
    assert outcome == "fail"
    assert expected_text % {"endpoint": imds.endpoint} in result["msg"]


@pytest.mark.parametrize(
    ("args", "expected_text"),
    [
        ({"provider": "ibm"}, "value of provider must be one of"),
        ({"provider": "aws", "endpoint": "https://169.254.169.254"}, "the scheme must be http"),
        ({"provider": "aws", "timeout": 0}, "timeout 0.0: expected a number of seconds greater than 0"),
        ({"provider": "none", "bogus": 1}, "Unsupported parameters"),
    ],
)
def test_bad_arguments_fail(args, expected_text):
    outcome, result = run(args)
    assert outcome == "fail"
    assert expected_text in result["msg"]
