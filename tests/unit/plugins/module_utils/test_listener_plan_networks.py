# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The planner's ``networks`` option: named client networks and the route each takes to every broker."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_routes import derived_port
from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import (
    PlanError,
    inter_broker_hosts,
    listener_routes,
    node_properties,
    plan_listeners,
    plan_options,
)

NLB = "kafka-nlb-0123456789abcdef.elb.us-east-1.amazonaws.com"
PUBLIC = ["ec2-198-19-0-%d.compute-1.amazonaws.com" % (10 + i) for i in range(3)]


def broker(index, resolvable=False, roles=("broker", "controller")):
    return {
        "name": "b%d" % index,
        "node_id": index + 1,
        "process_roles": list(roles),
        "private_host": "ip-198-18-0-%d.ec2.internal" % (10 + index),
        "public_dns": PUBLIC[index],
        "public_ip": "198.19.0.%d" % (10 + index),
        "external_checks": {name: {"resolvable": resolvable, "connectable": resolvable} for name in PUBLIC},
    }


def cluster(resolvable=False):
    return [broker(index, resolvable) for index in range(3)]


VPC = {"name": "vpc", "route": "private", "port": 19092}
INTERNET = {"name": "internet", "route": "public_dns", "port": 9092}
THROUGH_NLB = {"name": "internet-nlb", "route": "load_balancer", "host": NLB, "base_port": 9100, "port": 9094}
PRIVATE_LINK = {"name": "privatelink", "route": "static", "port": 9095, "endpoints": {
    "b%d" % i: "vpce-0abc-%d.vpce-svc-0123.us-east-1.vpce.amazonaws.com:9092" % i for i in range(3)}}


def advertised(plan, index=0):
    return plan["brokers"][index]["properties"]["advertised.listeners"].split(",")


def test_each_network_gets_the_route_it_names_and_its_clients_their_bootstrap():
    plan = plan_listeners(cluster(), {"networks": [VPC, INTERNET, THROUGH_NLB, PRIVATE_LINK]})
    assert plan["mode"] == "networks"
    assert advertised(plan, 1) == [
        "VPC://ip-198-18-0-11.ec2.internal:19092",
        "INTERNET://ec2-198-19-0-11.compute-1.amazonaws.com:9092",
        "INTERNET_NLB://%s:9102" % NLB,  # base_port plus node id 2
        "PRIVATELINK://vpce-0abc-1.vpce-svc-0123.us-east-1.vpce.amazonaws.com:9092",
    ]
    assert plan["brokers"][1]["properties"]["listeners"] == (
        "VPC://0.0.0.0:19092,INTERNET://0.0.0.0:9092,INTERNET_NLB://0.0.0.0:9094,PRIVATELINK://0.0.0.0:9095,"
        "CONTROLLER://ip-198-18-0-11.ec2.internal:9093")
    assert plan["brokers"][1]["inter_broker_listener"] == "VPC"
    assert plan["clients"]["internet-nlb"] == {
        "bootstrap": ",".join("%s:%d" % (NLB, 9101 + i) for i in range(3)), "endpoint_network": "internet-nlb",
        "listener": "INTERNET_NLB", "protocol": "PLAINTEXT"}
    assert plan["clients"]["privatelink"]["listener"] == "PRIVATELINK"
    assert plan["plaintext_outside"] == ["INTERNET", "INTERNET_NLB"]
    assert plan["brokers"][0]["health_endpoint"]["listener"] == "VPC"
    for node in plan["brokers"]:
        assert check_kafka_config(node_properties(node)) == []


def test_a_load_balancer_takes_an_explicit_port_map_and_networks_on_one_route_share_a_listener():
    nlb = {"name": "partners", "route": "load_balancer", "host": NLB, "port": 9094,
           "ports": {"b0": 19000, "b1": 19010, "b2": 19020}}
    peered = {"name": "peered", "route": "private", "port": 19092}
    plan = plan_listeners(cluster(), {"networks": [VPC, peered, nlb]})
    assert advertised(plan, 2) == ["VPC://ip-198-18-0-12.ec2.internal:19092", "PARTNERS://%s:19020" % NLB]
    assert plan["clients"]["peered"] == plan["clients"]["vpc"]
    assert plan["clients"]["peered"]["endpoint_network"] == "vpc"


def test_auto_shares_the_private_route_with_public_names_that_resolve_from_every_broker():
    options = {"networks": [VPC, THROUGH_NLB, INTERNET]}
    split_horizon = plan_listeners(cluster(resolvable=True), options)
    assert [entry.split("://")[0] for entry in advertised(split_horizon)] == ["INTERNET_NLB", "INTERNET"]
    assert split_horizon["brokers"][0]["inter_broker_listener"] == "INTERNET"
    assert split_horizon["clients"]["vpc"]["listener"] == "INTERNET"
    assert "vpc share listener INTERNET with internet" in split_horizon["reason"]
    private_only = plan_listeners(cluster(resolvable=False), options)
    assert private_only["brokers"][0]["inter_broker_listener"] == "VPC"
    assert "vpc keep listener VPC: %s (broker b0) does not resolve from broker b0" % PUBLIC[0] in private_only["reason"]
    # mode networks never shares
    exact = plan_listeners(cluster(resolvable=True), dict(options, mode="networks"))
    assert exact["brokers"][0]["inter_broker_listener"] == "VPC"


def test_a_private_route_of_its_own_listener_is_not_shared_and_inter_broker_can_be_chosen():
    peered = {"name": "peered", "route": "private", "listener": "PEERED", "port": 19093}
    plan = plan_listeners(cluster(resolvable=True), {"networks": [VPC, peered, INTERNET]})
    assert [entry.split("://")[0] for entry in advertised(plan)] == ["PEERED", "INTERNET"]
    # (brokers reach each other there only if the public names resolve from every broker: else it is refused, below)
    chosen = plan_listeners(cluster(resolvable=True), {"networks": [VPC, dict(INTERNET, inter_broker=True)]})
    assert chosen["brokers"][0]["inter_broker_listener"] == "INTERNET"


@pytest.mark.parametrize("resolvable", [False, True])
def test_the_plan_spells_out_its_networks_so_that_one_node_plans_alone_to_the_same_keys(resolvable):
    peered = {"name": "peered", "route": "private"}
    nodes = cluster(resolvable)
    plan = plan_listeners(nodes, {"networks": [peered, VPC, THROUGH_NLB, INTERNET, PRIVATE_LINK]})
    pinned = plan["networks"]
    assert sorted(entry["name"] for entry in pinned) == ["internet", "internet-nlb", "peered", "privatelink", "vpc"]
    assert sum(bool(entry.get("inter_broker")) for entry in pinned) == 1
    # as the pre-start program plans a node: mode networks, no resolvability checks, the other brokers left out
    for index, node in enumerate(nodes):
        alone = plan_listeners([dict(node, external_checks={})], {"mode": "networks", "networks": pinned})
        assert alone["brokers"][0]["properties"]["advertised.listeners"] == \
            plan["brokers"][index]["properties"]["advertised.listeners"]
        assert alone["brokers"][0]["properties"]["listeners"] == plan["brokers"][index]["properties"]["listeners"]
        assert alone["brokers"][0]["inter_broker_listener"] == plan["brokers"][index]["inter_broker_listener"]
    assert ("INTERNET" if resolvable else "PEERED") == plan["brokers"][0]["inter_broker_listener"]


def test_derived_names_and_ports_do_not_move_when_a_network_is_added():
    before = plan_listeners(cluster(), {"networks": [{"name": "vpc", "route": "private"},
                                                     {"name": "internet", "route": "public"}]})
    after = plan_listeners(cluster(), {"networks": [{"name": "partner-vpn", "route": "public_ip"},
                                                    {"name": "vpc", "route": "private"},
                                                    {"name": "internet", "route": "public"}]})
    assert set(advertised(before)) <= set(advertised(after))
    assert "VPC://ip-198-18-0-10.ec2.internal:%d" % derived_port("vpc") in advertised(before)
    assert "PARTNER_VPN://198.19.0.10:%d" % derived_port("partner-vpn") in advertised(after)


def test_a_derived_port_taken_goes_to_the_next_free_one():
    taken = derived_port("internet")
    plan = plan_listeners(cluster(), {"networks": [{"name": "vpc", "route": "private", "port": taken},
                                                   {"name": "internet", "route": "public"}]})
    assert advertised(plan)[1] == "INTERNET://%s:%d" % (PUBLIC[0], taken + 1)


def test_the_protocol_of_a_network_goes_in_the_protocol_map():
    plan = plan_listeners(cluster(), {"networks": [VPC, dict(INTERNET, protocol="sasl_ssl")]})
    assert plan["brokers"][0]["properties"]["listener.security.protocol.map"] == (
        "VPC:PLAINTEXT,INTERNET:SASL_SSL,CONTROLLER:PLAINTEXT")
    assert plan["plaintext_outside"] == []
    assert plan["brokers"][0]["tls_listeners"] == ["INTERNET"]


@pytest.mark.parametrize(("networks", "options", "message"), [
    ([VPC, dict(INTERNET, port=19092)], {}, "network internet: port 19092 is also network vpc's"),
    ([VPC, dict(INTERNET, port=9093)], {}, "network internet: port 9093 is also the controller listener's"),
    ([VPC, dict(INTERNET, listener="vpc")], {}, "network internet: listener name VPC is also network vpc's"),
    ([{"name": "a-b", "route": "private"}, {"name": "a_b", "route": "public"}], {},
     "network a_b: listener name A_B is also network a-b's"),
    ([VPC, dict(PRIVATE_LINK, endpoints={"b0": "vpce-0.example.com:9092", "b1": "vpce-1.example.com:9092"})], {},
     "network privatelink: endpoints has no entry for broker(s) b2"),
    ([VPC, dict(THROUGH_NLB, base_port=None, ports={"b0": 1, "b1": 2, "b9": 4})], {},
     "network internet-nlb: ports has no entry for broker(s) b2"),
    ([VPC, dict(THROUGH_NLB, base_port=None, ports={"b0": 9100, "b1": 9100, "b2": 9102})], {},
     "network internet-nlb: brokers b0 and b1 would both be reached at %s:9100" % NLB),
    ([VPC, dict(PRIVATE_LINK, endpoints={"b0": "vpce.example.com:1", "b1": "VPCE.example.com:1", "b2": "x:2"})], {},
     "network privatelink: brokers b0 and b1 would both be reached at VPCE.example.com:1"),
    ([VPC, dict(THROUGH_NLB, host="nlb.example.com\nlisteners=EVIL://x:1")], {},
     "invalid host 'nlb.example.com\\nlisteners=EVIL://x:1' from network internet-nlb, host: it contains a newline"),
    ([VPC, dict(PRIVATE_LINK, endpoints={"b0": "vpce#x:1", "b1": "a:1", "b2": "b:1"})], {},
     "invalid host 'vpce#x' from network privatelink, endpoint of broker b0 'vpce#x:1': it contains '#'"),
    ([VPC, dict(PRIVATE_LINK, endpoints={"b0": "vpce-0", "b1": "a:1", "b2": "b:1"})], {},
     "network privatelink, endpoint of broker b0 'vpce-0' is not of the form host:port"),
    ([VPC, dict(THROUGH_NLB, host="127.0.0.1")], {},
     "network internet-nlb: the host for broker b0 is the address 127.0.0.1, a loopback address"),
    ([VPC, dict(THROUGH_NLB, base_port=65534)], {},
     "network internet-nlb: base_port 65534 plus node id 2 of broker b1 is past 65535"),
    ([VPC, dict(THROUGH_NLB, ports={"b0": 1})], {}, "network internet-nlb: route load_balancer needs exactly one of"),
    ([VPC, {"name": "x", "route": "public", "host": NLB}], {}, "network x: host do(es) not apply to route public"),
    ([VPC, {"name": "x", "route": "tunnel"}], {}, "network x: route 'tunnel' is not one of private, public"),
    ([VPC, {"name": "x y", "route": "public"}], {}, "option networks[1]: name 'x y' is not a network name"),
    ([VPC, dict(VPC, port=1)], {}, "network vpc: declared twice (networks[0] and networks[1])"),
    ([VPC, dict(INTERNET, port=70000)], {}, "network internet, port: port 70000 is outside 1-65535"),
    ([VPC, dict(INTERNET, protocol="TLS")], {}, "network internet: protocol 'TLS' is not one of"),
    ([VPC, dict(INTERNET, protocol="SSL")], {"security_protocols": {"INTERNET": "SASL_SSL"}},
     "network internet: protocol SSL, but option security_protocols gives listener INTERNET SASL_SSL"),
    ([VPC, dict(INTERNET, colour="blue")], {}, "network internet: unknown key(s) colour"),
    ([VPC, dict(INTERNET, inter_broker=True), dict(THROUGH_NLB, inter_broker=True)], {},
     "option networks: inter_broker is set on more than one route (internet, internet-nlb)"),
    ([VPC], {"mode": "dual"}, "option networks replaces the layout of mode dual"),
    ("vpc", {}, "option networks: expected a non-empty list of client networks"),
])
def test_bad_networks_are_refused_naming_the_network_the_broker_and_what_is_wrong(networks, options, message):
    with pytest.raises(PlanError) as refused:
        plan_listeners(cluster(), dict(options, networks=networks))
    assert message in str(refused.value)


def test_a_broker_without_the_host_its_route_needs_is_named():
    nodes = cluster()
    nodes[1]["public_dns"] = None
    with pytest.raises(PlanError, match="network internet \\(route public_dns\\): broker b1 has no public_dns"):
        plan_listeners(nodes, {"networks": [VPC, INTERNET]})


def test_the_networks_option_is_checked_by_plan_options_too():
    assert plan_options({"networks": [VPC]})["networks"] == [VPC]
    with pytest.raises(PlanError, match="mode: networks needs the networks option"):
        plan_options({"mode": "networks"})


_hostile = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", "localhost", "127.0.0.1", "0.0.0.0", "169.254.169.254", "::1", "[::1]", "a,b", "a:1:2",
                     "x\ny", "host=1", "a/b", "-", "ok.example.com", "2001:db8::1", "[2001:db8::2]"]),
    st.integers(min_value=-5, max_value=70000), st.none(), st.booleans(), st.lists(st.integers(), max_size=2))


_names = st.sampled_from(["vpc", "internet", "nlb", "pl", "a-b", "a_b", "peered", "vpn.office"])
_brokers = st.sampled_from(["b0", "b1", "b2"])
_ports = st.integers(min_value=1, max_value=65535)
_hosts = st.sampled_from(["nlb.example.com", "vpce-1.example.com", "198.19.0.99", "[2001:db8::1]", "tunnel"])


@st.composite
def network(draw, name):
    route = draw(st.sampled_from(["private", "public", "public_dns", "public_ip", "load_balancer", "static"]))
    item = {"name": name, "route": route}
    if route == "load_balancer":
        item["host"] = draw(_hosts)
        if draw(st.booleans()):
            item["base_port"] = draw(st.integers(min_value=1, max_value=65530))
        else:
            item["ports"] = {name: draw(_ports) for name in ("b0", "b1", "b2")}
    if route == "static":
        item["endpoints"] = {name: "%s:%d" % (draw(_hosts), draw(_ports)) for name in ("b0", "b1", "b2")}
    for key in draw(st.sets(st.sampled_from(["listener", "port", "protocol", "inter_broker"]))):
        item[key] = draw({"listener": st.sampled_from(["VPC", "INTERNET", "client", "CONTROLLER"]), "port": _ports,
                          "protocol": st.sampled_from(["PLAINTEXT", "ssl", "SASL_SSL"]),
                          "inter_broker": st.booleans()}[key])
    return item


@st.composite
def network_lists(draw):
    """Well-formed networks, then perhaps one value replaced by a hostile one (any key, any network)."""
    names = draw(st.lists(_names, min_size=1, max_size=5, unique=True))
    networks = [draw(network(name)) for name in names]
    if draw(st.booleans()):
        target = draw(st.sampled_from(networks))
        key = draw(st.sampled_from(sorted(target) + ["colour"]))
        value = draw(_hostile)
        if key in ("ports", "endpoints"):
            target[key] = dict(target[key], **{draw(st.sampled_from(["b0", "b9"])): value})
        else:
            target[key] = value
    return networks


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(network_lists(), st.sampled_from(["auto", "networks"]), st.booleans())
def test_hostile_networks_give_a_plan_kafka_accepts_or_a_plan_error(networks, mode, resolvable):
    try:
        plan = plan_listeners(cluster(resolvable), {"mode": mode, "networks": networks})
    except PlanError as exc:
        assert str(exc)
        return
    for node in plan["brokers"]:
        assert check_kafka_config(node_properties(node)) == []
        hostports = [endpoint["hostport"] for endpoint in node["endpoints"]]
        assert all("\n" not in value and "," not in value for value in hostports)
    for client, answer in plan["clients"].items():
        assert answer["bootstrap"], client
    again = plan_listeners(cluster(resolvable), {"mode": "networks", "networks": plan["networks"]})
    assert [node["properties"] for node in again["brokers"]] == [node["properties"] for node in plan["brokers"]]


def test_listener_routes_name_each_listeners_endpoint_network_and_route():
    plan = plan_listeners(cluster(), {"networks": [VPC, INTERNET, dict(THROUGH_NLB), PRIVATE_LINK,
                                                   {"name": "peered", "route": "private", "port": 19092}]})
    assert listener_routes(plan) == {
        "VPC": {"endpoint_network": "vpc", "route": "private"},  # peered shares it: the first network names it
        "INTERNET": {"endpoint_network": "internet", "route": "public_dns"},
        "INTERNET_NLB": {"endpoint_network": "internet-nlb", "route": "load_balancer"},
        "PRIVATELINK": {"endpoint_network": "privatelink", "route": "static"},
    }


@pytest.mark.parametrize(("options", "expected"), [
    ({"mode": "single"}, {"PLAINTEXT": {"endpoint_network": "all", "route": "public"}}),
    ({"mode": "dual"}, {"INTERNAL": {"endpoint_network": "internal", "route": "private"},
                        "EXTERNAL": {"endpoint_network": "external", "route": "public"}}),
])
def test_listener_routes_of_the_presets(options, expected):
    assert listener_routes(plan_listeners(cluster(resolvable=True), options)) == expected


def test_listener_routes_of_the_docker_layout():
    nodes = [dict(broker(0), container_name="kafka-1")]
    plan = plan_listeners(nodes, {"mode": "docker"})
    assert listener_routes(plan) == {
        "DOCKER": {"endpoint_network": "container", "route": "container"},
        "HOST": {"endpoint_network": "docker-host", "route": "literal"},
        "EXTERNAL": {"endpoint_network": "external", "route": "public"},
    }


def with_checks(nodes, names, resolvable_from):
    """``nodes`` whose resolvability checks of ``names`` say resolvable from the brokers in ``resolvable_from``."""
    for node in nodes:
        node["external_checks"].update({name: {"resolvable": node["name"] in resolvable_from, "connectable": None}
                                        for name in names})
    return nodes


PRIVATE = ["ip-198-18-0-%d.ec2.internal" % (10 + i) for i in range(3)]


def test_an_inter_broker_host_that_does_not_resolve_from_a_broker_is_refused_naming_network_broker_and_host():
    nodes = with_checks(cluster(), PRIVATE[:1], resolvable_from={"b0", "b1"})
    with pytest.raises(PlanError) as refused:
        plan_listeners(nodes, {"networks": [VPC, INTERNET]})
    assert str(refused.value).startswith(
        "network vpc (route private) carries the inter-broker listener VPC, which every broker must reach: host "
        "%s of broker b0 does not resolve from broker b2. Nothing was written" % PRIVATE[0])
    # a static route the brokers use among themselves: each endpoint host is checked the same way
    linked = dict(PRIVATE_LINK, inter_broker=True)
    hosts = inter_broker_hosts(cluster(), {"networks": [VPC, linked]})
    assert hosts == ["vpce-0abc-%d.vpce-svc-0123.us-east-1.vpce.amazonaws.com" % i for i in range(3)]
    with pytest.raises(PlanError, match=r"network privatelink \(route static\) .* host %s of broker b1 does not "
                                        r"resolve from broker b0, b1, b2\." % re.escape(hosts[1])):
        plan_listeners(with_checks(cluster(), hosts[1:2], resolvable_from=()), {"networks": [VPC, linked]})
    # resolving from every broker, or not checked at all (a plan made without the role's checks), passes
    assert plan_listeners(with_checks(cluster(), PRIVATE, {"b0", "b1", "b2"}), {"networks": [VPC, INTERNET]})
    assert plan_listeners(cluster(), {"networks": [VPC, linked]})


def test_inter_broker_hosts_are_the_hosts_of_the_route_brokers_use_among_themselves():
    assert inter_broker_hosts(cluster(), {"networks": [INTERNET, VPC, THROUGH_NLB]}) == PRIVATE
    assert inter_broker_hosts(cluster(), {"networks": [VPC, dict(THROUGH_NLB, inter_broker=True)]}) == [NLB]
    assert inter_broker_hosts(cluster(), {"networks": [VPC, INTERNET], "inter_broker_listener": "INTERNET"}) == PUBLIC
    assert inter_broker_hosts(cluster(), {"networks": [{"name": "ips", "route": "public_ip"}]}) == []
    assert inter_broker_hosts(cluster(), {"mode": "dual"}) == []
