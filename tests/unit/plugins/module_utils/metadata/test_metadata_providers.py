# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Each provider's client against the lab emulator: exact values, provider-specific truths, faults, bad servers."""

from __future__ import annotations

import pytest
from metadata_lab import SERVED, VALUES, closed_port_endpoint, expected, within_hang_guard

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata import fetch_metadata
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.errors import (
    AccessRefused,
    EndpointUnreachable,
    HeaderCheckFailed,
    InvalidValue,
    MalformedAnswer,
    MetadataError,
    ParameterError,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.http_client import BoundedClient

PROVIDERS = sorted(VALUES)
# Generous per-request timeout: the machine is shared; only the fault tests use short ones on purpose.
TIMEOUT = 5.0
TOTAL = 20.0


def fetch(provider, imds, **kwargs):
    """fetch_metadata against the emulator, inside the hang guard."""
    kwargs.setdefault("timeout", TIMEOUT)
    kwargs.setdefault("total_timeout", TOTAL)
    return within_hang_guard(fetch_metadata, provider, imds.endpoint, **kwargs)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_returns_the_emulators_values_exactly(provider, imds, values):
    imds.serve(values[provider])
    record, warnings = fetch(provider, imds)
    assert record == expected(provider, values[provider])
    assert warnings == []


@pytest.mark.parametrize("provider", PROVIDERS)
def test_no_public_address_gives_nulls(provider, imds, values):
    node = dict(values[provider], public_ip=None, public_dns=None)
    imds.serve(node)
    record = fetch(provider, imds)[0]
    assert record["public_ip"] is None
    assert record["public_dns"] is None
    assert record["private_ip"] == node["private_ip"]


def test_aws_public_hostname_404_gives_null_public_dns(imds, values):
    # a public IP but no public DNS name (VPC without DNS hostnames): public-hostname answers 404
    node = dict(values["aws"], public_dns=None)
    imds.serve(node)
    record = fetch("aws", imds)[0]
    assert record["public_ip"] == node["public_ip"]
    assert record["public_dns"] is None
    assert record["private_dns"] == node["private_dns"]


def test_openstack_ec2_public_hostname_is_not_reported_as_public_dns(imds, values):
    # Nova serves the internal name as EC2 public-hostname; even values claiming a public name must not leak
    node = dict(values["openstack"], public_dns="broker-4.example.org")
    imds.serve(node)
    record = fetch("openstack", imds)[0]
    assert record["public_dns"] is None
    assert record["private_dns"] == node["private_dns"]


def test_gcp_network_name_is_returned_as_the_full_network_path(imds, values):
    imds.serve(dict(values["gcp"], network_id="lab-vpc", project_number="100200300400"))
    record = fetch("gcp", imds)[0]
    assert record["network_id"] == "projects/100200300400/networks/lab-vpc"


@pytest.mark.parametrize("provider", sorted(set(PROVIDERS) - {"aws"}))
def test_public_dns_is_null_where_the_cloud_has_none(provider, imds, values):
    # the values claim a public name, but only AWS metadata carries one
    imds.serve(dict(values[provider], public_dns="broker.public.example.com"))
    record = fetch(provider, imds)[0]
    assert record["public_dns"] is None
    assert "public_dns" not in SERVED[provider]


# -- AWS IMDSv2 -------------------------------------------------------------------------------------------------


def test_aws_token_refused_is_a_clear_error(imds, values):
    imds.serve(values["aws"])
    imds.fault("token_refused")
    with pytest.raises(AccessRefused) as caught:
        fetch("aws", imds)
    message = str(caught.value)
    assert "refused an IMDSv2 session token" in message
    assert "HTTP 403 on PUT /latest/api/token" in message
    assert imds.endpoint in message
    assert "allow_imdsv1=true" in message


def test_aws_imdsv1_only_node_is_refused_by_default(imds, values):
    # an instance whose token endpoint refuses (IMDSv2 unavailable) but which serves token-less IMDSv1 GETs
    imds.serve(dict(values["aws"], imdsv1=True))
    imds.fault("token_refused")
    with pytest.raises(AccessRefused) as caught:
        fetch("aws", imds)
    assert "IMDSv1 (requests without a token) is not tried unless allow_imdsv1=true" in str(caught.value)


def test_aws_imdsv1_only_node_is_read_when_allowed(imds, values):
    node = dict(values["aws"], imdsv1=True)
    imds.serve(node)
    imds.fault("token_refused")
    record, warnings = fetch("aws", imds, allow_imdsv1=True)
    assert record == expected("aws", node)
    assert len(warnings) == 1
    assert "read IMDSv1 without a token because allow_imdsv1=true" in warnings[0]


def test_aws_allow_imdsv1_still_uses_a_token_when_one_is_issued(imds, values):
    imds.serve(dict(values["aws"], imdsv1=True))
    record, warnings = fetch("aws", imds, allow_imdsv1=True)
    assert record["instance_id"] == values["aws"]["instance_id"]
    assert warnings == []  # no fallback happened


def test_aws_imdsv2_required_and_token_refused_gives_401_explanation(imds, values):
    imds.serve(dict(values["aws"], imdsv1=False))
    imds.fault("token_refused")
    with pytest.raises(AccessRefused) as caught:
        fetch("aws", imds, allow_imdsv1=True)
    message = str(caught.value)
    assert "HTTP 401 without a session token" in message
    assert "requires IMDSv2 (HttpTokens=required)" in message


# -- faults -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_garbage_is_an_error_never_a_result(provider, imds, values):
    imds.serve(values[provider])
    imds.fault("garbage")
    with pytest.raises((MalformedAnswer, InvalidValue)) as caught:
        fetch(provider, imds)
    message = str(caught.value)
    assert message.startswith(provider + " metadata ") or message.startswith("invalid ")
    assert provider + " metadata GET /" in message  # names provider and path


def test_invalid_host_error_names_provider_path_and_value(imds, values):
    # the emulator validates IPs but not names: a name with a space reaches the client and must be refused
    imds.serve(dict(values["gcp"], private_dns="broker 2.internal"))
    with pytest.raises(InvalidValue) as caught:
        fetch("gcp", imds)
    message = str(caught.value)
    assert "'broker 2.internal'" in message
    assert "gcp metadata GET /computeMetadata/v1/instance/hostname" in message
    assert "whitespace" in message


def test_unsafe_id_is_refused(imds, values):
    imds.serve(dict(values["hetzner"], region="fsn1\nlisteners=PLAINTEXT://x:1"))
    with pytest.raises(InvalidValue) as caught:
        fetch("hetzner", imds)
    assert "invalid region 'fsn1\\nlisteners=PLAINTEXT://x:1'" in str(caught.value)
    assert "hetzner metadata GET /hetzner/v1/metadata/region" in str(caught.value)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_down_endpoint_is_named_with_the_timeout(provider, imds, values):
    imds.serve(values[provider])
    imds.fault("down")
    with pytest.raises(EndpointUnreachable) as caught:
        fetch(provider, imds, timeout=2.0)
    message = str(caught.value)
    assert "%s instance metadata endpoint %s is unreachable" % (provider, imds.endpoint) in message
    assert "timeout 2 s per request, total_timeout 20 s" in message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_slow_endpoint_times_out_per_request(provider, imds, values):
    imds.serve(values[provider])
    imds.fault("slow", slow_seconds=10)
    with pytest.raises(EndpointUnreachable) as caught:
        fetch(provider, imds, timeout=0.3, total_timeout=15)
    message = str(caught.value)
    assert "%s instance metadata endpoint %s is unreachable" % (provider, imds.endpoint) in message
    assert "no answer within 0.3 s" in message


def test_total_timeout_bounds_the_whole_call(imds, values):
    # a per-request timeout longer than the hang guard: only the total bound can end this call in time
    imds.serve(values["gcp"])
    imds.fault("slow", slow_seconds=120)
    with pytest.raises(EndpointUnreachable) as caught:
        fetch("gcp", imds, timeout=100, total_timeout=0.5)
    message = str(caught.value)
    assert "did not answer" in message
    assert "within total_timeout 0.5 s" in message
    assert "GET /computeMetadata/v1/instance/id" in message


def test_aws_total_timeout_during_the_token_request(imds, values):
    imds.serve(values["aws"])
    imds.fault("slow", slow_seconds=120)
    with pytest.raises(EndpointUnreachable) as caught:
        fetch("aws", imds, timeout=100, total_timeout=0.5)
    assert "did not answer PUT /latest/api/token within total_timeout 0.5 s" in str(caught.value)


def test_connection_refused_names_the_endpoint():
    endpoint = closed_port_endpoint()
    with pytest.raises(EndpointUnreachable) as caught:
        within_hang_guard(fetch_metadata, "azure", endpoint, timeout=2, total_timeout=5)
    message = str(caught.value)
    assert "azure instance metadata endpoint %s is unreachable" % endpoint in message
    assert "connection refused" in message
    assert "timeout 2 s per request" in message


@pytest.mark.parametrize(("announced", "sent"), [(100, b"short"), (5, b""), (2, b"a")])
def test_an_answer_shorter_than_its_content_length_is_refused(hostile_server, announced, sent):
    server = hostile_server(lambda conn: conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s" % (announced, sent)))
    client = BoundedClient("gcp", server.endpoint, timeout=2, total_timeout=5)
    with pytest.raises(MalformedAnswer) as caught:
        within_hang_guard(client.request, "GET", "/computeMetadata/v1/instance/hostname")
    assert str(caught.value) == (
        "gcp metadata GET /computeMetadata/v1/instance/hostname at %s: the answer ended after %d of the %d bytes its "
        "Content-Length announced" % (server.endpoint, len(sent), announced))


def test_an_answer_as_long_as_its_content_length_is_taken(hostile_server):
    server = hostile_server(lambda conn: conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nname"))
    answer = BoundedClient("gcp", server.endpoint, timeout=2, total_timeout=5).request("GET", "/")
    assert (answer.status, answer.body) == (200, b"name")


# -- a server that is not the provider's --------------------------------------------------------------------------


def test_gcp_header_check_refuses_a_non_google_server(imds, values):
    imds.serve(values["aws"])  # answers 401 without Metadata-Flavor
    with pytest.raises(HeaderCheckFailed) as caught:
        fetch("gcp", imds)
    message = str(caught.value)
    assert "lacks the header 'Metadata-Flavor: Google'" in message
    assert "gcp metadata GET /computeMetadata/v1/instance/" in message


@pytest.mark.parametrize("provider", ["azure", "openstack", "digitalocean", "oci", "hetzner"])
def test_wrong_provider_is_an_error(provider, imds, values):
    other = "gcp" if provider != "gcp" else "aws"
    imds.serve(values[other])
    with pytest.raises(MetadataError) as caught:
        fetch(provider, imds)
    assert str(caught.value).startswith(provider + " metadata ")


# -- parameters -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("endpoint", "problem"),
    [
        ("https://169.254.169.254", "the scheme must be http"),
        ("http://", "it names no host"),
        ("http://169.254.169.254/latest", "give only http://HOST[:PORT]"),
        ("http://user:pw@127.0.0.1", "credentials in the URL"),
        ("http://127.0.0.1:99999", "not a valid URL"),
        ("", "expected a URL"),
    ],
)
def test_bad_endpoint_is_a_parameter_error(endpoint, problem):
    with pytest.raises(ParameterError) as caught:
        fetch_metadata("aws", endpoint)
    assert problem in str(caught.value)


@pytest.mark.parametrize(("name", "value"), [("timeout", 0), ("total_timeout", -1), ("timeout", True)])
def test_bad_timeouts_are_parameter_errors(name, value):
    kwargs = {"timeout": 1.0, "total_timeout": 5.0, name: value}
    with pytest.raises(ParameterError) as caught:
        fetch_metadata("aws", "http://127.0.0.1:9", **kwargs)
    assert "%s %r: expected a number of seconds greater than 0" % (name, value) in str(caught.value)


def test_unknown_provider_is_a_parameter_error():
    with pytest.raises(ParameterError) as caught:
        fetch_metadata("ibm", "http://127.0.0.1:9")
    assert "provider 'ibm'" in str(caught.value)
