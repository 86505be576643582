# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Broker addresses and names from the EC2 API (DescribeInstances), for the control node.

Private to kafkaops.listeners: no compatibility promise outside the collection.

This is the control-node counterpart of the AWS instance metadata client: when a broker's own metadata service
cannot be asked (IMDS turned off, or a provisioning hook runs before SSH works), the same values come from the EC2
API. ``describe_brokers()`` returns each instance both in this module's own shape and in the record shape of the
``instance_metadata`` module, so the broker role can take either.

API answers are untrusted input, as metadata answers are: every host value is checked with ``validate_host`` and
every id, zone and state with a pattern, and a failing value raises an error naming the instance and the field.

boto3 is an optional dependency: ``HAS_BOTO3`` says whether it imported, ``BOTO3_IMPORT_ERROR`` holds the traceback.
"""

from __future__ import annotations

import re
import traceback

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import (
    HostError,
    ip_literal,
    validate_host,
)
from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.checks import result

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
        NoCredentialsError,
        NoRegionError,
        PartialCredentialsError,
        ProfileNotFound,
    )
except ImportError:
    HAS_BOTO3 = False
    BOTO3_IMPORT_ERROR = traceback.format_exc()
else:
    HAS_BOTO3 = True
    BOTO3_IMPORT_ERROR = None

#: Every state EC2 reports for an instance (``State.Name``).
STATE_CHOICES = ("pending", "running", "shutting-down", "terminated", "stopping", "stopped")
#: Instances that have, or are about to have, the addresses they will serve with; a stopped instance loses its
#: public IP (unless it is an Elastic IP) and gets a new one when it starts again.
DEFAULT_STATES = ("pending", "running")
#: The keys of each entry of ``instances``, in the order the documentation lists them.
INSTANCE_FIELDS = ("instance_id", "name", "private_dns", "private_ip", "public_dns", "public_ip", "vpc_id",
                   "availability_zone", "state", "tags")

_INSTANCE_ID = re.compile(r"^i-(?:[0-9a-f]{8}|[0-9a-f]{17})$")
_VPC_ID = re.compile(r"^vpc-[0-9a-f]{8,17}$")
# Regions and zones, including Local and Wavelength Zones (us-west-2-lax-1a, us-east-1-wl1-bos-wlz-1).
_REGION_OR_ZONE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)+$")
_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Filters whose job the ``states`` option does; both at once would silently intersect.
_STATE_FILTERS = ("instance-state-name", "instance-state-code")
_NOT_FOUND_CODES = ("InvalidInstanceID.NotFound", "InvalidInstanceID.Malformed")
_USER_AGENT = "kafkaops.listeners-ec2_broker_facts"


class Ec2FactsError(Exception):
    """The instances could not be described, or what EC2 returned cannot be trusted; ``str()`` is the message."""


# ---------------------------------------------------------------------------------------------------- parameters


def _check_instance_ids(values) -> list:
    """The requested ids without duplicates, in the given order; Ec2FactsError naming a malformed one."""
    if not isinstance(values, (list, tuple)):
        raise Ec2FactsError("instance_ids must be a list of EC2 instance ids, got %r" % (values,))
    checked = []
    for index, value in enumerate(values):
        if not isinstance(value, str) or not _INSTANCE_ID.fullmatch(value):
            raise Ec2FactsError("instance_ids[%d]: %r is not an EC2 instance id ('i-' and 8 or 17 lower-case "
                                "hexadecimal digits)" % (index, value))
        if value not in checked:
            checked.append(value)
    return checked


def _filter_value(value, name: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"  # the EC2 spelling of boolean filter values
    if isinstance(value, (str, int, float)):
        return str(value)
    raise Ec2FactsError("filters[%r]: values must be strings, numbers or booleans, got %r" % (name, value))


def build_filters(filters, states) -> list:
    """EC2 ``Filters`` for DescribeInstances from a ``{name: value or [values]}`` dict and the wanted states.

    Filters are sorted by name so requests are reproducible. An empty ``states`` adds no state filter (any state).
    Raises Ec2FactsError for a malformed filter, an unknown state, or a state filter that ``states`` should carry.
    """
    filters = filters or {}
    if not isinstance(filters, dict):
        raise Ec2FactsError("filters must be a dictionary of EC2 filter names to values, got %r" % (filters,))
    built = []
    for name in sorted(filters, key=str):
        if not isinstance(name, str) or not name:
            raise Ec2FactsError("filters: %r is not an EC2 filter name" % (name,))
        if name in _STATE_FILTERS:
            raise Ec2FactsError("filters[%r]: select instance states with the states option, not a filter (an "
                                "empty states list means any state)" % name)
        raw = filters[name]
        values = raw if isinstance(raw, (list, tuple)) else [raw]
        if not values:
            raise Ec2FactsError("filters[%r]: the list of values is empty, so no instance could match" % name)
        built.append({"Name": name, "Values": [_filter_value(value, name) for value in values]})
    states = list(states or [])
    for state in states:
        if state not in STATE_CHOICES:
            raise Ec2FactsError("states: %r is not an EC2 instance state (one of %s)"
                                % (state, ", ".join(STATE_CHOICES)))
    if states:
        built.append({"Name": "instance-state-name", "Values": states})
    return built


def _check_credentials(params: dict) -> None:
    key_id, secret = params.get("aws_access_key_id"), params.get("aws_secret_access_key")
    if bool(key_id) != bool(secret):
        raise Ec2FactsError("aws_access_key_id and aws_secret_access_key must be given together (only %s was given)"
                            % ("aws_access_key_id" if key_id else "aws_secret_access_key"))
    if params.get("session_token") and not key_id:
        raise Ec2FactsError("session_token needs aws_access_key_id and aws_secret_access_key: it belongs to "
                            "temporary credentials")


def _check_region(value, source: str) -> str:
    if not isinstance(value, str) or not _REGION_OR_ZONE.fullmatch(value):
        raise Ec2FactsError("invalid region %r from %s: expected lower-case letters, digits and '-', like "
                            "us-west-2" % (value, source))
    return value


def _check_endpoint_url(value) -> None:
    if not isinstance(value, str) or not re.match(r"https?://[^/\s]+(?:/\S*)?\Z", value):
        raise Ec2FactsError("endpoint_url must be an http:// or https:// URL, got %r" % (value,))


# ------------------------------------------------------------------------------------------------------- client


def ec2_client(params: dict):
    """An EC2 client from the credential and location options; the SDK's default chain fills what is not given.

    Raises Ec2FactsError for an unknown profile or when no region can be found.
    """
    try:
        session = boto3.session.Session(
            aws_access_key_id=params.get("aws_access_key_id"),
            aws_secret_access_key=params.get("aws_secret_access_key"),
            aws_session_token=params.get("session_token"),
            region_name=params.get("region"),
            profile_name=params.get("profile"),
        )
        return session.client("ec2", endpoint_url=params.get("endpoint_url"),
                              config=Config(user_agent_extra=_USER_AGENT))
    except ProfileNotFound as exc:
        raise Ec2FactsError("profile %r: %s (looked in the AWS config and credentials files)"
                            % (params.get("profile"), exc)) from None
    except NoRegionError:
        raise Ec2FactsError("no AWS region: set the region option, AWS_REGION (or AWS_DEFAULT_REGION), or a region "
                            "in the profile's AWS config") from None
    except BotoCoreError as exc:
        raise Ec2FactsError("cannot create an EC2 client: %s" % exc) from None


# --------------------------------------------------------------------------------------------------- API calls


def _api_error(exc: Exception, region: str) -> Ec2FactsError:
    """A user-facing error for an exception of a DescribeInstances call."""
    if isinstance(exc, (NoCredentialsError, PartialCredentialsError)):
        return Ec2FactsError("no usable AWS credentials (%s): give aws_access_key_id and aws_secret_access_key, or a "
                             "profile, or configure the SDK's default chain (environment, shared credentials file, "
                             "instance or container role)" % exc)
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        return Ec2FactsError("EC2 DescribeInstances failed in region %s: %s: %s"
                             % (region, error.get("Code", "unknown error code"), error.get("Message", exc)))
    return Ec2FactsError("EC2 DescribeInstances failed in region %s: %s" % (region, exc))


def _describe(client, instance_ids: list, filters: list, page_size: int | None) -> list:
    """Every instance of every page of DescribeInstances, as EC2 returned them."""
    arguments = {}
    if instance_ids:
        arguments["InstanceIds"] = instance_ids
    if filters:
        arguments["Filters"] = filters
    if page_size and not instance_ids:
        # EC2 refuses MaxResults together with InstanceIds; with ids it pages on its own when it needs to.
        arguments["PaginationConfig"] = {"PageSize": page_size}
    instances = []
    for page in client.get_paginator("describe_instances").paginate(**arguments):
        for reservation in page.get("Reservations") or []:
            instances.extend(reservation.get("Instances") or [])
    return instances


def _not_found_ids(client, exc, requested: list) -> list:
    """The requested ids EC2 does not know, after an InvalidInstanceID error for ``requested``.

    EC2 names them in its message, but emulators may name only the first: ask again with an ``instance-id`` filter,
    which never fails for unknown ids, and name every id it does not return. If that fails too, fall back to the ids
    the message quotes, and to all requested ids when it quotes none.
    """
    try:
        visible = {raw.get("InstanceId")
                   for raw in _describe(client, [], [{"Name": "instance-id", "Values": requested}], None)}
    except (BotoCoreError, ClientError):
        visible = set(requested)
    unknown = [value for value in requested if value not in visible]
    if unknown:
        return unknown
    message = exc.response.get("Error", {}).get("Message", "")
    return [value for value in requested if value in message] or list(requested)


def _why_missing(client, missing: list, filters: list, states: list) -> list:
    """One phrase per id that DescribeInstances did not return: its state, or that it is not visible."""
    try:
        found = {raw.get("InstanceId"): raw for raw in _describe(client, missing, [], None)}
    except (BotoCoreError, ClientError):
        found = {}
    reasons = []
    for instance_id in missing:
        raw = found.get(instance_id)
        if raw is None:
            reasons.append("%s (does not exist in this region or is not visible to these credentials)" % instance_id)
            continue
        state = (raw.get("State") or {}).get("Name")
        if states and state not in states:
            reasons.append("%s (its state is %s; states allows %s)" % (instance_id, state, ", ".join(states)))
        else:
            reasons.append("%s (does not match the filters %s)"
                           % (instance_id, ", ".join(f["Name"] for f in filters if f["Name"] != "instance-state-name")))
    return reasons


# ------------------------------------------------------------------------------------------- checking answers


def _host(raw: dict, key: str, field: str, instance_id: str, want_ip: bool) -> str | None:
    """The checked host value of ``raw[key]``; None when EC2 gives none (absent, null or "")."""
    value = raw.get(key)
    if value is None or value == "":
        return None
    source = "%s (%s) of EC2 instance %s" % (field, key, instance_id)
    try:
        checked = validate_host(value, source)
    except HostError as exc:
        raise Ec2FactsError(str(exc)) from None
    if want_ip and ip_literal(checked) is None:
        raise Ec2FactsError("invalid IP address %r from %s: it is not an IPv4 or IPv6 address" % (value, source))
    return checked


def _pattern(value, pattern, field: str, instance_id: str, required: bool) -> str | None:
    if value is None or value == "":
        if required:
            raise Ec2FactsError("EC2 returned no %s for instance %s" % (field, instance_id))
        return None
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise Ec2FactsError("invalid %s %r from EC2 for instance %s" % (field, value, instance_id))
    return value


def _tags(raw: dict, instance_id: str) -> dict:
    tags = {}
    for tag in raw.get("Tags") or []:
        key, value = tag.get("Key"), tag.get("Value")
        if not isinstance(key, str) or not isinstance(value, str):
            raise Ec2FactsError("invalid tag %r from EC2 for instance %s: key and value must be strings"
                                % (tag, instance_id))
        tags[key] = value
    name = tags.get("Name")
    # The Name is a free-form label (spaces are common), but one holding a line break would forge log and
    # inventory lines wherever it is printed.
    if name is not None and _CONTROL_CHARS.search(name):
        raise Ec2FactsError("invalid name %r (tag Name) of EC2 instance %s: it contains control characters"
                            % (name, instance_id))
    return tags


def _records(raw: dict, region: str) -> tuple:
    """(entry of ``instances``, instance_metadata-shaped record) for one instance as EC2 described it."""
    instance_id = raw.get("InstanceId")
    if not isinstance(instance_id, str) or not _INSTANCE_ID.fullmatch(instance_id):
        raise Ec2FactsError("invalid instance id %r from EC2 (InstanceId)" % (instance_id,))
    tags = _tags(raw, instance_id)
    state = (raw.get("State") or {}).get("Name")
    if state not in STATE_CHOICES:
        raise Ec2FactsError("invalid state %r from EC2 (State.Name) for instance %s" % (state, instance_id))
    entry = {
        "instance_id": instance_id,
        "name": tags.get("Name"),
        "private_dns": _host(raw, "PrivateDnsName", "private_dns", instance_id, want_ip=False),
        "private_ip": _host(raw, "PrivateIpAddress", "private_ip", instance_id, want_ip=True),
        "public_dns": _host(raw, "PublicDnsName", "public_dns", instance_id, want_ip=False),
        "public_ip": _host(raw, "PublicIpAddress", "public_ip", instance_id, want_ip=True),
        "vpc_id": _pattern(raw.get("VpcId"), _VPC_ID, "vpc_id (VpcId)", instance_id, required=False),
        "availability_zone": _pattern((raw.get("Placement") or {}).get("AvailabilityZone"), _REGION_OR_ZONE,
                                      "availability_zone (Placement.AvailabilityZone)", instance_id, required=False),
        "state": state,
        "tags": tags,
    }
    metadata = result("aws", instance_id=instance_id, region=region, zone=entry["availability_zone"],
                      private_ip=entry["private_ip"], private_dns=entry["private_dns"], public_ip=entry["public_ip"],
                      public_dns=entry["public_dns"], network_id=entry["vpc_id"])
    return entry, metadata


# ------------------------------------------------------------------------------------------------------ entry


def describe_brokers(params: dict, client_factory=None, page_size: int | None = None) -> dict:
    """Describe the instances ``params`` select; return ``{"instances": [...], "by_instance": {...}}``.

    ``params`` holds the module's options (instance_ids, filters, states, region, profile, endpoint_url and the
    credentials). ``client_factory(params)`` returns the EC2 client (default: ``ec2_client``). ``page_size`` sets
    DescribeInstances' MaxResults when no instance ids are given. ``instances`` is sorted by instance id;
    ``by_instance`` maps each id to the record shape of the instance_metadata module. Every requested instance id
    must be found in one of the wanted states, or Ec2FactsError names the missing ones.
    """
    if not HAS_BOTO3:
        raise Ec2FactsError("the Python library boto3 is required but could not be imported")
    instance_ids = _check_instance_ids(params.get("instance_ids") or [])
    states = list(DEFAULT_STATES if params.get("states") is None else params["states"])
    filters = build_filters(params.get("filters"), states)
    if not instance_ids and not params.get("filters"):
        raise Ec2FactsError("give instance_ids or filters: without either, every instance of the region would be "
                            "taken for a broker")
    _check_credentials(params)
    if params.get("region") is not None:
        _check_region(params["region"], "the region option")
    if params.get("endpoint_url") is not None:
        _check_endpoint_url(params["endpoint_url"])

    client = (client_factory or ec2_client)(params)
    region = _check_region(client.meta.region_name, "the EC2 client's configuration")
    try:
        described = _describe(client, instance_ids, filters, page_size)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in _NOT_FOUND_CODES and instance_ids:
            raise Ec2FactsError("EC2 instance ids not found in region %s: %s (%s: %s)"
                                % (region, ", ".join(_not_found_ids(client, exc, instance_ids)),
                                   exc.response["Error"]["Code"], exc.response["Error"].get("Message", ""))) from None
        raise _api_error(exc, region) from None
    except BotoCoreError as exc:
        raise _api_error(exc, region) from None

    by_id = {}
    for raw in described:
        entry, metadata = _records(raw, region)
        by_id[entry["instance_id"]] = (entry, metadata)
    missing = [value for value in instance_ids if value not in by_id]
    if missing:
        raise Ec2FactsError("EC2 did not return these requested instances in region %s: %s"
                            % (region, "; ".join(_why_missing(client, missing, filters, states))))
    ordered = sorted(by_id)
    return {
        "instances": [by_id[instance_id][0] for instance_id in ordered],
        "by_instance": {instance_id: by_id[instance_id][1] for instance_id in ordered},
    }
