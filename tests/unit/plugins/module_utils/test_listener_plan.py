# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostnames import special_address
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import (
    PlanError,
    node_properties,
    plan_listeners,
    plan_options,
)

# The private and public names of the EC2 instance in Confluent's "Configure Multi-Node Environment" page.
PRIVATE = "ip-172-31-18-160.us-west-2.compute.internal"
PUBLIC = "ec2-54-191-84-122.us-west-2.compute.amazonaws.com"


def aws_broker(index, resolvable_names=(), connectable_names=()):
    return {
        "name": "b%d" % index,
        "node_id": index,
        "private_host": "ip-172-31-18-%d.us-west-2.compute.internal" % (160 + index),
        "public_dns": "ec2-54-191-84-%d.us-west-2.compute.amazonaws.com" % (122 + index),
        "external_checks": {
            name: {"resolvable": name in resolvable_names, "connectable": name in connectable_names}
            for name in ["ec2-54-191-84-%d.us-west-2.compute.amazonaws.com" % (122 + i) for i in range(3)]
        },
    }


def all_public(count=3):
    return ["ec2-54-191-84-%d.us-west-2.compute.amazonaws.com" % (122 + i) for i in range(count)]


def confluent_broker():
    return {"name": "kafka", "node_id": 0, "private_host": PRIVATE, "public_dns": PUBLIC,
            "external_checks": {PUBLIC: {"resolvable": True, "connectable": True}}}


def test_single_is_confluents_option_1():
    plan = plan_listeners([confluent_broker()], {"mode": "single"})
    props = plan["brokers"][0]["properties"]
    assert plan["mode"] == "single"
    assert props["advertised.listeners"] == "PLAINTEXT://%s:9092" % PUBLIC
    assert props["listeners"] == "PLAINTEXT://0.0.0.0:9092"
    # Kafka's defaults cover the rest, exactly as the page leaves them unset
    assert props["listener.security.protocol.map"] is None
    assert props["inter.broker.listener.name"] is None
    assert props["security.inter.broker.protocol"] is None
    assert "controller.listener.names" not in props


def test_dual_is_confluents_option_2():
    plan = plan_listeners([confluent_broker()], {"mode": "dual"})
    props = plan["brokers"][0]["properties"]
    assert props == {
        "listeners": "INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092",
        "listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
        "advertised.listeners": "INTERNAL://%s:19092,EXTERNAL://%s:9092" % (PRIVATE, PUBLIC),
        "inter.broker.listener.name": "INTERNAL",
        "security.inter.broker.protocol": None,
    }
    assert plan["bootstrap"] == {"internal": PRIVATE + ":19092", "external": PUBLIC + ":9092"}


def test_auto_is_single_when_every_public_name_resolves_from_every_broker():
    brokers = [aws_broker(i, resolvable_names=all_public()) for i in range(3)]
    plan = plan_listeners(brokers)
    assert plan["mode"] == "single"
    assert "every broker's public DNS name resolves from every broker" in plan["reason"]
    assert [b["mode"] for b in plan["brokers"]] == ["single"] * 3


def test_auto_is_dual_when_one_name_fails_from_one_broker_and_says_which():
    brokers = [aws_broker(i, resolvable_names=all_public()) for i in range(3)]
    brokers[2]["external_checks"][all_public()[0]]["resolvable"] = False
    plan = plan_listeners(brokers)
    assert plan["mode"] == "dual"
    assert plan["reason"] == "dual: %s (public name of broker b0) does not resolve from broker b2" % all_public()[0]
    assert {b["mode"] for b in plan["brokers"]} == {"dual"}


def test_auto_takes_the_resolvability_modules_results_list():
    brokers = [aws_broker(i) for i in range(3)]
    for broker in brokers:
        broker["external_checks"] = [
            {"name": name, "resolvable": True, "connectable": None, "addresses": ["198.18.0.1"]}
            for name in all_public()
        ]
    assert plan_listeners(brokers)["mode"] == "single"
    brokers[0]["external_checks"] = [{"resolvable": True}]
    with pytest.raises(PlanError, match="broker b0: external_checks as a list needs one mapping with a 'name'"):
        plan_listeners(brokers)


def test_auto_treats_an_unchecked_name_as_not_resolvable():
    brokers = [aws_broker(i, resolvable_names=all_public()) for i in range(3)]
    del brokers[1]["external_checks"][all_public()[2]]
    plan = plan_listeners(brokers)
    assert plan["mode"] == "dual"
    assert "was not checked from broker b1" in plan["reason"]


def test_auto_with_connectivity_checks_requires_connects_too():
    brokers = [aws_broker(i, resolvable_names=all_public(), connectable_names=all_public()[1:]) for i in range(3)]
    assert plan_listeners(brokers)["mode"] == "single"
    plan = plan_listeners(brokers, {"check_connectivity": True})
    assert plan["mode"] == "dual"
    assert "resolves but does not connect" in plan["reason"]


def test_public_ip_without_a_dns_name_gives_dual_on_auto():
    broker = {"name": "g1", "node_id": 1, "private_host": "g1.c.proj.internal", "public_ip": "198.19.0.11"}
    plan = plan_listeners([broker])
    assert plan["mode"] == "dual"
    assert "no public DNS name" in plan["reason"]
    assert plan["brokers"][0]["properties"]["advertised.listeners"] == (
        "INTERNAL://g1.c.proj.internal:19092,EXTERNAL://198.19.0.11:9092")


def test_broker_without_public_address_gets_an_internal_listener_only():
    brokers = [aws_broker(i) for i in range(2)]
    brokers[1]["public_dns"] = None
    plan = plan_listeners(brokers)
    assert plan["mode"] == "dual"
    props = plan["brokers"][1]["properties"]
    assert props["listeners"] == "INTERNAL://0.0.0.0:19092"
    assert props["advertised.listeners"] == "INTERNAL://%s:19092" % brokers[1]["private_host"]
    assert props["listener.security.protocol.map"] == "INTERNAL:PLAINTEXT"
    assert "internal listener only (no public address) on: b1" in plan["reason"]


def test_single_mode_refuses_a_broker_without_public_address():
    broker = confluent_broker()
    broker["public_dns"] = None
    with pytest.raises(PlanError, match="mode single needs a public DNS name or IP for every broker; none for: kafka"):
        plan_listeners([broker], {"mode": "single"})


def test_docker_generalises_bob_fred_alice():
    broker = {"name": "kafka0", "node_id": 0, "container_name": "kafka0", "public_dns": "never-gonna-give-you-up"}
    options = {"mode": "docker", "docker_listeners": [
        {"name": "LISTENER_BOB", "port": 29092, "host": "container"},
        {"name": "LISTENER_FRED", "port": 9092, "host": "localhost"},
        {"name": "LISTENER_ALICE", "port": 29094, "host": "external"},
    ]}
    node = plan_listeners([broker], options)["brokers"][0]
    assert node["properties"] == {
        "listeners": "LISTENER_BOB://0.0.0.0:29092,LISTENER_FRED://0.0.0.0:9092,LISTENER_ALICE://0.0.0.0:29094",
        "advertised.listeners": "LISTENER_BOB://kafka0:29092,LISTENER_FRED://localhost:9092,"
                                "LISTENER_ALICE://never-gonna-give-you-up:29094",
        "listener.security.protocol.map": "LISTENER_BOB:PLAINTEXT,LISTENER_FRED:PLAINTEXT,LISTENER_ALICE:PLAINTEXT",
        "inter.broker.listener.name": "LISTENER_BOB",
        "security.inter.broker.protocol": None,
    }
    assert [e["network"] for e in node["endpoints"]] == ["container", "docker-host", "external"]


def kraft_node(index, roles):
    return {"name": "n%d" % index, "node_id": index, "process_roles": roles,
            "private_host": "10.0.0.%d" % (10 + index), "public_dns": "n%d.example.com" % index}


def test_kraft_combined_nodes_get_a_controller_listener_on_the_private_host_never_advertised():
    nodes = [kraft_node(i, ["broker", "controller"]) for i in range(1, 4)]
    plan = plan_listeners(nodes, {"mode": "dual"})
    props = plan["brokers"][0]["properties"]
    assert props["listeners"] == "INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092,CONTROLLER://10.0.0.11:9093"
    assert "CONTROLLER" not in props["advertised.listeners"]
    assert props["controller.listener.names"] == "CONTROLLER"
    assert props["controller.quorum.voters"] == "1@10.0.0.11:9093,2@10.0.0.12:9093,3@10.0.0.13:9093"
    assert props["controller.quorum.bootstrap.servers"] is None
    assert props["listener.security.protocol.map"] == "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT"


def test_kraft_separate_controllers_and_bootstrap_quorum():
    nodes = [kraft_node(i, ["controller"]) for i in range(1, 4)] + [kraft_node(i, ["broker"]) for i in range(4, 7)]
    plan = plan_listeners(nodes, {"mode": "dual", "quorum": "bootstrap"})
    controller, broker = plan["brokers"][0], plan["brokers"][3]
    assert controller["properties"]["listeners"] == "CONTROLLER://10.0.0.11:9093"
    assert controller["properties"]["advertised.listeners"] is None
    assert controller["endpoints"] == []
    assert broker["properties"]["listeners"] == "INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092"
    assert broker["properties"]["listener.security.protocol.map"].endswith(",CONTROLLER:PLAINTEXT")
    assert broker["properties"]["controller.quorum.bootstrap.servers"] == "10.0.0.11:9093,10.0.0.12:9093,10.0.0.13:9093"
    assert broker["properties"]["controller.quorum.voters"] is None
    assert broker["controller_endpoint"] is None


def test_ipv6_literals_are_bracketed():
    broker = {"name": "v6", "node_id": 0, "private_host": "fd00::11", "public_ip": "2001:db8::11"}
    props = plan_listeners([broker], {"mode": "dual", "bind_address": "::"})["brokers"][0]["properties"]
    assert props["listeners"] == "INTERNAL://[::]:19092,EXTERNAL://[::]:9092"
    assert props["advertised.listeners"] == "INTERNAL://[fd00::11]:19092,EXTERNAL://[2001:db8::11]:9092"


@pytest.mark.parametrize("bad", [
    "ec2-1.example.com\nlisteners=EVIL://0.0.0.0:1", "a b", "host=evil", "host:9092", "#comment", "back\\slash",
    "a,b", "x" * 300,
])
def test_untrusted_hosts_are_refused_with_their_source(bad):
    broker = confluent_broker()
    broker["public_dns"] = bad
    with pytest.raises(PlanError) as info:
        plan_listeners([broker], {"mode": "dual"})
    assert "public_dns of broker kafka" in str(info.value)
    assert repr(bad)[:40] in str(info.value)


def test_an_empty_public_name_means_none():
    # some services answer an empty 200 for "no public address" (OpenStack's public-ipv4)
    broker = dict(confluent_broker(), public_dns="")
    assert plan_listeners([broker], {"mode": "dual"})["brokers"][0]["properties"]["listeners"] == (
        "INTERNAL://0.0.0.0:19092")


def test_unspecified_address_is_never_advertised():
    broker = dict(confluent_broker(), private_host="0.0.0.0")
    with pytest.raises(PlanError, match="private_host of broker kafka '0.0.0.0' is the address 0.0.0.0. Unspecified "):
        plan_listeners([broker], {"mode": "dual"})


def test_security_protocol_per_listener():
    plan = plan_listeners([confluent_broker()], {"mode": "dual", "security_protocols": {"external": "ssl"}})
    node = plan["brokers"][0]
    assert node["properties"]["listener.security.protocol.map"] == "INTERNAL:PLAINTEXT,EXTERNAL:SSL"
    assert [e["protocol"] for e in node["endpoints"]] == ["PLAINTEXT", "SSL"]


@pytest.mark.parametrize(("options", "message"), [
    ({"mode": "quad"}, "option mode: 'quad' is not one of auto, single, dual, docker"),
    ({"internal_port": 9092}, "listener ports 9092, 9092 repeat"),
    ({"external_listener_name": "INTERNAL"}, "listener names INTERNAL, INTERNAL repeat"),
    ({"internal_port": 70000}, "option internal_port: port 70000 is outside 1-65535"),
    ({"security_protocols": {"EXTERNAL": "TLS"}}, "'TLS' for listener EXTERNAL is not one of"),
    ({"inter_broker_listener": "EXTERNAL2"}, "inter_broker_listener: EXTERNAL2 is not one of"),
    ({"colour": "red"}, "unknown option(s) colour"),
])
def test_bad_options_are_named(options, message):
    options = dict({"mode": "dual"}, **options)
    with pytest.raises(PlanError) as info:
        plan_listeners([confluent_broker()], options)
    assert message in str(info.value)


def test_bad_facts_are_named():
    with pytest.raises(PlanError, match="node_id 'x' is not a non-negative integer"):
        plan_listeners([{"name": "a", "node_id": "x"}])
    with pytest.raises(PlanError, match="node_id 0 is used by another node"):
        plan_listeners([confluent_broker(), dict(confluent_broker(), name="other")])
    with pytest.raises(PlanError, match="a cluster runs one or the other"):
        plan_listeners([kraft_node(1, ["broker", "controller"]), dict(confluent_broker(), node_id=9)])
    with pytest.raises(PlanError, match="no node has the controller role"):
        plan_listeners([kraft_node(1, ["broker"])], {"mode": "dual"})


# ------------------------------------------------------------------------------------------- every plan passes

_label = st.from_regex(r"[a-z][a-z0-9-]{0,10}[a-z0-9]", fullmatch=True)
_dns = st.builds(".".join, st.lists(_label, min_size=1, max_size=4)).filter(lambda h: special_address(h) is None)
_ipv4 = st.ip_addresses(v=4).map(str).filter(lambda a: special_address(a) is None)
_ipv6 = st.ip_addresses(v=6).map(str).filter(lambda a: special_address(a) is None)
# hosts a client elsewhere can use: the refused classes have tests of their own (test_refused_hosts below)
_host = st.one_of(_dns, _ipv4, _ipv6).filter(lambda host: special_address(host) is None)
_name = st.from_regex(r"[A-Z][A-Z0-9_]{0,12}", fullmatch=True)
_port = st.integers(min_value=1, max_value=65535)


@st.composite
def clusters(draw):
    kraft = draw(st.booleans())
    count = draw(st.integers(min_value=1, max_value=5))
    nodes = []
    for index in range(count):
        if kraft:
            roles = draw(st.sampled_from([["broker"], ["controller"], ["broker", "controller"]]))
        else:
            roles = []
        nodes.append({
            "name": "n%d" % index,
            "node_id": index,
            "process_roles": roles,
            "private_host": draw(_host),
            "public_dns": draw(st.one_of(st.none(), _dns)),
            "public_ip": draw(st.one_of(st.none(), _ipv4, _ipv6)),
            "container_name": draw(_dns),
        })
    if kraft:
        if not any("controller" in n["process_roles"] for n in nodes):
            nodes[0]["process_roles"] = ["controller"]
        if not any("broker" in n["process_roles"] for n in nodes):
            nodes[-1]["process_roles"] = ["broker", "controller"]
    names = [n["public_dns"] for n in nodes if n["public_dns"]]
    for node in nodes:
        node["external_checks"] = {name: {"resolvable": draw(st.booleans()), "connectable": draw(st.booleans())}
                                   for name in names}
    ports = draw(st.lists(_port, min_size=7, max_size=7, unique=True))
    listener_names = draw(st.lists(_name, min_size=6, max_size=6, unique=True))
    mode = draw(st.sampled_from(["auto", "dual", "docker"] + (["single"] if all(
        n["public_dns"] or n["public_ip"] for n in nodes) else [])))
    options = {
        "mode": mode,
        "check_connectivity": draw(st.booleans()),
        "bind_address": draw(st.sampled_from(["0.0.0.0", "::", "", "127.0.0.1"]).filter(bool)),
        "internal_listener_name": listener_names[0],
        "external_listener_name": listener_names[1],
        "controller_listener_name": listener_names[2],
        "single_listener_name": draw(st.sampled_from(["PLAINTEXT", "SSL", listener_names[3]])),
        "internal_port": ports[0],
        "external_port": ports[1],
        "controller_port": ports[2],
        "single_port": ports[3],
        "quorum": draw(st.sampled_from(["voters", "bootstrap"])),
        "security_protocols": {listener_names[1]: draw(st.sampled_from(["PLAINTEXT", "SSL", "SASL_SSL"]))},
        "docker_listeners": [
            {"name": listener_names[3], "port": ports[4], "host": "container"},
            {"name": listener_names[4], "port": ports[5], "host": "localhost"},
            {"name": listener_names[5], "port": ports[6], "host": "external"},
        ],
    }
    if mode == "docker" and not all(n["public_dns"] or n["public_ip"] for n in nodes):
        options["docker_listeners"] = options["docker_listeners"][:2]
    return nodes, options


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_every_plan_passes_kafkas_startup_rules(cluster):
    nodes, options = cluster
    plan = plan_listeners(nodes, options)
    assert plan["mode"] in ("single", "dual", "docker")
    assert {node["mode"] for node in plan["brokers"]} == {plan["mode"]}
    for node in plan["brokers"]:
        assert check_kafka_config(node_properties(node)) == [], node
        for value in node["properties"].values():
            assert value is None or not any(c in value for c in "\n\r=#\\ ")


# ------------------------------------------------------------------------------------------- refused hosts
# Every host that is, or that the system resolver reads as, an address no other machine can use is refused before
# anything is planned, in every spelling: the value and where it came from are named.

_REFUSED_V4 = {
    "loopback": st.integers(0x7F000000, 0x7FFFFFFF),
    "unspecified": st.integers(0, 0x00FFFFFF),
    "link-local": st.integers(0xA9FE0000, 0xA9FEFFFF),
    "multicast": st.integers(0xE0000000, 0xEFFFFFFF),
    "broadcast": st.just(0xFFFFFFFF),
}
_REFUSED_V6 = {
    "loopback": st.just(1),
    "unspecified": st.just(0),
    "link-local": st.integers(0xFE80 << 112, (0xFEC0 << 112) - 1),
    "multicast": st.integers(0xFF00 << 112, (1 << 128) - 1),
}


def _number(draw, value):
    style = draw(st.sampled_from(["dec", "oct", "hex", "HEX"]))
    if style == "dec":
        return str(value)
    if style == "oct":
        return "0%o" % value
    return ("0x%x" if style == "hex" else "0X%X") % value


@st.composite
def refused_spellings(draw):
    """(class, spelling) of an address in a refused range, spelled as inet_aton, ipaddress or /etc/hosts do."""
    family = draw(st.sampled_from(["v4", "v6", "mapped", "name"]))
    if family == "name":
        name, klass = draw(st.sampled_from([
            ("localhost", "loopback"), ("localhost.localdomain", "loopback"), ("ip6-localhost", "loopback"),
            ("ip6-loopback", "loopback"), ("localhost6", "loopback"), ("kafka.localhost", "loopback"),
            ("ip6-allnodes", "multicast"), ("ip6-allrouters", "multicast")]))
        spelled = "".join(c.upper() if draw(st.booleans()) else c for c in name)
    elif family == "v6" or family == "mapped":
        if family == "mapped":
            klass = draw(st.sampled_from(sorted(_REFUSED_V4)))
            value = (0xFFFF << 32) | draw(_REFUSED_V4[klass])
        else:
            klass = draw(st.sampled_from(sorted(_REFUSED_V6)))
            value = draw(_REFUSED_V6[klass])
        address = ipaddress.IPv6Address(value)
        spelled = draw(st.sampled_from([address.compressed, address.exploded, address.compressed.upper()]))
        if draw(st.booleans()):
            spelled = "[%s]" % spelled
    else:
        klass = draw(st.sampled_from(sorted(_REFUSED_V4)))
        value = draw(_REFUSED_V4[klass])
        octets = list(ipaddress.IPv4Address(value).packed)
        parts = draw(st.integers(1, 4))
        # inet_aton's short forms: the last number fills the bytes the others leave
        head, tail = octets[:parts - 1], int.from_bytes(bytes(octets[parts - 1:]), "big")
        spelled = ".".join(_number(draw, n) for n in head + [tail])
    if family in ("v4", "name") and draw(st.booleans()):
        spelled += "."  # the root label
    return klass, spelled


@given(refused_spellings(), st.sampled_from(["private_host", "public_dns", "public_ip"]),
       st.sampled_from(["auto", "single", "dual"]), st.booleans())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_refused_hosts_in_every_spelling(refused, key, mode, allow_loopback):
    klass, spelled = refused
    brokers = [aws_broker(i, all_public(), all_public()) for i in range(3)]
    brokers[1] = dict(brokers[1], source="instance metadata (aws)", **{key: spelled})
    if key == "public_ip":
        brokers[1]["public_dns"] = None
    if allow_loopback and klass == "loopback":
        plan = plan_listeners(brokers, {"mode": mode, "allow_loopback": True})
        assert plan["brokers"][1]["name"] == "b1"
        return
    with pytest.raises(PlanError) as info:
        plan_listeners(brokers, {"mode": mode, "allow_loopback": allow_loopback})
    message = str(info.value)
    assert "%s of broker b1 (from instance metadata (aws)) %r is " % (key, spelled) in message
    assert "%s addresses: " % klass.capitalize() in message


def test_every_refused_host_is_named_at_once():
    brokers = [aws_broker(i, all_public()) for i in range(3)]
    brokers[0]["public_dns"] = "LocalHost."
    brokers[2]["private_host"] = "169.254.169.254"
    with pytest.raises(PlanError) as info:
        plan_listeners(brokers, {"mode": "dual"})
    message = str(info.value)
    assert "public_dns of broker b0 'LocalHost.' is a name the hosts file maps to a loopback address;" in message
    assert "private_host of broker b2 '169.254.169.254' is the address 169.254.169.254." in message
    assert "Link-local addresses: they are only valid on one network segment" in message
    assert "metadata service itself" in message


def test_a_name_that_resolves_to_loopback_from_a_broker_is_refused():
    brokers = [aws_broker(i, all_public()) for i in range(3)]
    # Debian's /etc/hosts maps the machine's own name to 127.0.1.1
    brokers[2]["external_checks"][all_public()[2]]["addresses"] = ["127.0.1.1"]
    brokers[0]["external_checks"][brokers[1]["private_host"]] = {"resolvable": True, "addresses": ["::ffff:a9fe:a9fe"]}
    with pytest.raises(PlanError) as info:
        plan_listeners(brokers, {"mode": "auto"})
    message = str(info.value)
    assert ("public_dns %r of broker b2 resolves to 127.0.1.1, a loopback address, from broker b2" % all_public()[2]
            in message)
    assert "private_host %r of broker b1 resolves to ::ffff:a9fe:a9fe, a link-local address, from broker b0" % (
        brokers[1]["private_host"]) in message
    assert message.count("Loopback addresses: each client would connect to its own machine") == 1
    brokers[0]["external_checks"].pop(brokers[1]["private_host"])
    assert plan_listeners(brokers, {"mode": "auto", "allow_loopback": True})["mode"] == "single"


def test_docker_listener_hosts_are_checked_too_but_the_localhost_keyword_stays():
    options = {"mode": "docker", "docker_listeners": [
        {"name": "DOCKER", "port": 29092, "host": "container"}, {"name": "HOST", "port": 9092, "host": "localhost"},
        {"name": "LAN", "port": 29093, "host": "0x7f.1"}]}
    broker = dict(confluent_broker(), container_name="kafka0")
    with pytest.raises(PlanError, match=r"option docker_listeners\[2\].host '0x7f.1' is the address 127.0.0.1 as "
                                        "the system resolver reads it, a loopback address"):
        plan_listeners([broker], options)
    options["docker_listeners"].pop()
    assert plan_listeners([broker], options)["brokers"][0]["endpoints"][1]["host"] == "localhost"


def zookeeper_broker(index, inter_broker=None):
    """An AWS broker in ZooKeeper mode (no process roles) running the given inter-broker listener keys now."""
    broker = aws_broker(index)
    broker["current_properties"] = {} if inter_broker is None else {"inter.broker.listener.name": inter_broker}
    return broker


def test_zookeeper_mode_refuses_renaming_the_inter_broker_listener_in_one_rollout():
    # a fresh ZooKeeper-mode broker runs PLAINTEXT between brokers; dual's default INTERNAL would leave each
    # restarted broker without metadata from the controller (seen on real Kafka 3.9.2)
    brokers = [zookeeper_broker(i) for i in range(3)]
    with pytest.raises(PlanError, match=r"ZooKeeper mode: the plan renames the inter-broker listener \(PLAINTEXT -> "
                                        r"INTERNAL\).*set to PLAINTEXT.*three rolling restarts.*Nothing was written"):
        plan_listeners(brokers, {"mode": "dual"})


def test_zookeeper_mode_keeps_the_running_inter_broker_listener_name():
    brokers = [zookeeper_broker(i) for i in range(3)]
    plan = plan_listeners(brokers, {"mode": "dual", "internal_listener_name": "PLAINTEXT"})
    props = plan["brokers"][0]["properties"]
    assert props["inter.broker.listener.name"] == "PLAINTEXT"
    assert props["listeners"] == "PLAINTEXT://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092"
    assert node_properties(plan["brokers"][0])["broker.id"] == "0"
    # once the brokers run the plan, planning again refuses nothing
    again = [zookeeper_broker(i, "INTERNAL") for i in range(3)]
    assert plan_listeners(again, {"mode": "dual"})["mode"] == "dual"
    assert plan_listeners([zookeeper_broker(i) for i in range(3)], {"mode": "single"})["mode"] == "single"


def test_kraft_mode_renames_the_inter_broker_listener_in_one_rollout():
    # KRaft brokers get their metadata over the controller listener: the rename rolls (real Kafka 4.4.0 and 3.9.2)
    brokers = [dict(kraft_node(i, ["broker", "controller"]), current_properties={}) for i in range(1, 4)]
    assert plan_listeners(brokers, {"mode": "dual"})["brokers"][0]["properties"]["inter.broker.listener.name"] == \
        "INTERNAL"


# ------------------------------------------------------------------------------------ what the plan answers consumers


def test_the_plan_answers_each_client_network_with_bootstrap_listener_and_protocol():
    plan = plan_listeners([confluent_broker()], {"mode": "dual", "security_protocols": {"EXTERNAL": "SASL_SSL"}})
    assert plan["clients"] == {
        "vpc": {"bootstrap": PRIVATE + ":19092", "endpoint_network": "internal", "listener": "INTERNAL",
                "protocol": "PLAINTEXT"},
        "internet": {"bootstrap": PUBLIC + ":9092", "endpoint_network": "external", "listener": "EXTERNAL",
                     "protocol": "SASL_SSL"},
        # every endpoint network also answers under its own name
        "internal": {"bootstrap": PRIVATE + ":19092", "endpoint_network": "internal", "listener": "INTERNAL",
                     "protocol": "PLAINTEXT"},
        "external": {"bootstrap": PUBLIC + ":9092", "endpoint_network": "external", "listener": "EXTERNAL",
                     "protocol": "SASL_SSL"},
    }
    single = plan_listeners([confluent_broker()], {"mode": "single"})["clients"]
    assert single["vpc"] == single["internet"] == {"bootstrap": PUBLIC + ":9092", "endpoint_network": "all",
                                                   "listener": "PLAINTEXT", "protocol": "PLAINTEXT"}


def test_a_client_network_only_some_brokers_serve_bootstraps_from_those():
    brokers = [aws_broker(i) for i in range(3)]
    brokers[1]["public_dns"] = None
    plan = plan_listeners(brokers, {"mode": "dual"})
    assert plan["clients"]["internet"]["bootstrap"] == ",".join(
        "ec2-54-191-84-%d.us-west-2.compute.amazonaws.com:9092" % n for n in (122, 124))
    assert len(plan["clients"]["vpc"]["bootstrap"].split(",")) == 3


def test_docker_client_networks_and_a_listener_of_its_own():
    broker = {"name": "kafka0", "node_id": 0, "container_name": "kafka0", "public_dns": "kafka.example.com"}
    options = {"mode": "docker", "docker_listeners": [
        {"name": "DOCKER", "port": 29092, "host": "container"},
        {"name": "HOST", "port": 9092, "host": "localhost"},
        {"name": "EXTERNAL", "port": 29094, "host": "external"},
        {"name": "PEERED", "port": 29095, "host": "kafka.peered.example"},
    ]}
    clients = plan_listeners([broker], options)["clients"]
    assert clients["container"]["bootstrap"] == "kafka0:29092"
    assert clients["docker-host"]["bootstrap"] == "localhost:9092"
    assert clients["internet"]["bootstrap"] == "kafka.example.com:29094"
    assert clients["peered"] == {"bootstrap": "kafka.peered.example:29095", "endpoint_network": "peered",
                                 "listener": "PEERED", "protocol": "PLAINTEXT"}
    assert "vpc" not in clients  # no endpoint serves it: the roles say which client networks the plan serves


def test_client_networks_option_names_new_client_networks_and_refuses_bad_ones():
    networks = {"peered-vpc": ["internal"], "vpn": "external"}
    plan = plan_listeners([confluent_broker()], {"mode": "dual", "client_networks": networks})
    assert set(plan["clients"]) == {"peered-vpc", "vpn", "internal", "external"}
    assert plan["clients"]["vpn"]["listener"] == "EXTERNAL"
    for bad in ({"vpc": []}, {"vpc": [""]}, ["vpc"], {"vpc": [7]}):
        with pytest.raises(PlanError, match="option client_networks"):
            plan_listeners([confluent_broker()], {"mode": "dual", "client_networks": bad})


def test_each_node_has_the_health_endpoint_its_own_machine_checks():
    plan = plan_listeners([confluent_broker()], {"mode": "dual", "security_protocols": {"INTERNAL": "SSL"}})
    assert plan["brokers"][0]["health_endpoint"] == {
        "listener": "INTERNAL", "host": PRIVATE, "port": 19092, "hostport": PRIVATE + ":19092", "protocol": "SSL",
        "network": "internal"}
    docker = plan_listeners([{"name": "k", "node_id": 0, "container_name": "k", "public_dns": "k.example.com"}],
                            {"mode": "docker"})["brokers"][0]
    # container names do not resolve on the Docker host: it checks on the host's own listener
    assert docker["health_endpoint"]["hostport"] == "localhost:9092"
    nodes = [kraft_node(1, ["controller"]), kraft_node(2, ["broker"])]
    controller, broker = plan_listeners(nodes, {"mode": "dual"})["brokers"]
    assert controller["health_endpoint"] is None and controller["controller_endpoint"]["port"] == 9093
    assert broker["health_endpoint"]["listener"] == "INTERNAL"


def test_the_plan_names_the_listeners_outside_clients_reach_in_plaintext():
    assert plan_listeners([confluent_broker()], {"mode": "single"})["plaintext_outside"] == ["PLAINTEXT"]
    assert plan_listeners([confluent_broker()], {"mode": "dual"})["plaintext_outside"] == ["EXTERNAL"]
    secured = {"mode": "dual", "security_protocols": {"EXTERNAL": "SASL_SSL"}}
    assert plan_listeners([confluent_broker()], secured)["plaintext_outside"] == []


def test_plan_options_fill_the_defaults_and_name_a_bad_option():
    opts = plan_options({"single_port": "9094"})
    assert opts["single_port"] == 9094 and opts["external_port"] == 9092 and opts["mode"] == "auto"
    assert opts["client_networks"]["vpc"] == ["internal", "all"]
    # the filled-in options plan exactly as the given ones
    assert plan_listeners([confluent_broker()], opts) == plan_listeners([confluent_broker()], {"single_port": 9094})
    with pytest.raises(PlanError, match="option single_port: port 'x' is not a number"):
        plan_options({"single_port": "x"})


def test_the_plans_rule_check_quotes_the_option_kafka_version(monkeypatch):
    from ansible_collections.kafkaops.listeners.plugins.module_utils import _listener_plan

    asked = []

    def refuse(props, kafka_version=None):
        asked.append(kafka_version)
        return [{"rule": "R4", "message": "as Kafka %s words it" % kafka_version}]

    monkeypatch.setattr(_listener_plan, "check_kafka_config", refuse)
    with pytest.raises(PlanError, match="broker kafka: the planned listeners break Kafka's startup rules: R4: as "
                                        "Kafka 4.4.0 words it"):
        plan_listeners([confluent_broker()], {"mode": "single", "kafka_version": "4.4.0"})
    with pytest.raises(PlanError, match="R4: as Kafka None words it"):
        plan_listeners([confluent_broker()], {"mode": "single"})
    assert asked == ["4.4.0", None]


def test_an_unreadable_kafka_version_is_refused():
    with pytest.raises(PlanError, match="option kafka_version must look like 4.4 or 3.9.2, got 'latest'"):
        plan_listeners([confluent_broker()], {"kafka_version": "latest"})
    assert plan_listeners([confluent_broker()], {"mode": "single", "kafka_version": 4.4})["mode"] == "single"


def dynamic_quorum_cluster(c1_host_now):
    """A broker and two controllers whose files use controller.quorum.bootstrap.servers; c1 runs on c1_host_now."""
    def controller(name, node_id, host, host_now):
        return {"name": name, "node_id": node_id, "process_roles": ["controller"], "private_host": host,
                "current_properties": {"process.roles": "controller", "controller.listener.names": "CONTROLLER",
                                       "listeners": "CONTROLLER://%s:9093" % host_now,
                                       "controller.quorum.bootstrap.servers": "%s:9093,c2.internal:9093" % c1_host_now}}
    return [{"name": "b1", "node_id": 1, "process_roles": ["broker"], "private_host": "b1.internal",
             "current_properties": {"controller.quorum.bootstrap.servers": "%s:9093" % c1_host_now}},
            controller("c1", 101, "c1.internal", c1_host_now), controller("c2", 102, "c2.internal", "c2.internal")]


def test_moving_a_controller_of_a_dynamic_quorum_is_refused_naming_both_endpoints():
    with pytest.raises(PlanError) as refused:
        plan_listeners(dynamic_quorum_cluster("10.0.0.101"), {"mode": "dual", "quorum": "bootstrap"})
    message = str(refused.value)
    assert message.startswith("this plan moves controller c1 (node 101) from 10.0.0.101:9093 to c1.internal:9093, "
                              "but the cluster runs a dynamic KRaft quorum (controller.quorum.bootstrap.servers on "
                              "b1, c1, c2)")
    assert "Nothing was written" in message
    assert "kafka-metadata-quorum remove-controller" in message and "add-controller" in message


@pytest.mark.parametrize("kafka_version", [None, "3.9.2", "4.4.0", "4.5"])
def test_the_move_is_refused_on_every_release(kafka_version):
    # a file-edit rollout did not reliably move the voters on 3.9.2 nor on 4.4.0 (docs: recipe-kraft)
    with pytest.raises(PlanError, match="does not reliably move the voters"):
        plan_listeners(dynamic_quorum_cluster("10.0.0.101"),
                       {"mode": "dual", "quorum": "bootstrap", "kafka_version": kafka_version})


@pytest.mark.parametrize("kafka_version", [None, "3.9.2", "4.3.1"])
def test_an_unmoved_controller_or_a_static_quorum_is_not_refused(kafka_version):
    options = {"mode": "dual", "quorum": "bootstrap", "kafka_version": kafka_version}
    assert plan_listeners(dynamic_quorum_cluster("c1.internal"), options)["mode"] == "dual"
    static = dynamic_quorum_cluster("10.0.0.101")
    for node in static:
        node["current_properties"]["controller.quorum.voters"] = "101@10.0.0.101:9093,102@c2.internal:9093"
    assert plan_listeners(static, options)["mode"] == "dual"


def test_each_node_names_its_tls_listeners_the_controllers_included():
    nodes = [kraft_node(1, ["controller"]), kraft_node(2, ["broker"])]
    protocols = {"EXTERNAL": "SASL_SSL", "CONTROLLER": "SSL"}
    controller, broker = plan_listeners(nodes, {"mode": "dual", "security_protocols": protocols})["brokers"]
    assert controller["tls_listeners"] == ["CONTROLLER"]
    assert broker["tls_listeners"] == ["EXTERNAL"]  # the controller listener is not this node's
    assert plan_listeners([confluent_broker()], {"mode": "dual"})["brokers"][0]["tls_listeners"] == []
