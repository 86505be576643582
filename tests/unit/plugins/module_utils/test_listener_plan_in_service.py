# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A cluster in service is planned from what it runs: it keeps every listener and gets only what its clients miss.

The clusters here are Kafka's own shipped KRaft files as an operator adapts them on a VPC: 3.9's
config/kraft/server.properties with static voters at the private IPs, 4.x's config/server.properties with a dynamic
quorum (controller.quorum.bootstrap.servers) and the controller advertised at the private IP."""

from __future__ import annotations

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config
from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import (
    PlanError,
    node_properties,
    plan_listeners,
)

SHIPPED_MAP = "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"


def private_dns(index):
    return "ip-198-18-0-1%d.us-west-2.compute.internal" % index


def public_dns(index):
    return "ec2-198-19-0-1%d.us-west-2.compute.amazonaws.com" % index


def kafka_39(index):
    return {"listeners": "PLAINTEXT://:9092,CONTROLLER://:9093",
            "advertised.listeners": "PLAINTEXT://%s:9092" % private_dns(index),
            "listener.security.protocol.map": SHIPPED_MAP, "inter.broker.listener.name": "PLAINTEXT",
            "controller.listener.names": "CONTROLLER",
            "controller.quorum.voters": "1@198.18.0.11:9093,2@198.18.0.12:9093,3@198.18.0.13:9093"}


def kafka_41(index):
    return {"listeners": "PLAINTEXT://:9092,CONTROLLER://:9093",
            "advertised.listeners": "PLAINTEXT://%s:9092,CONTROLLER://198.18.0.1%d:9093" % (private_dns(index), index),
            "listener.security.protocol.map": SHIPPED_MAP, "inter.broker.listener.name": "PLAINTEXT",
            "controller.listener.names": "CONTROLLER",
            "controller.quorum.bootstrap.servers": "198.18.0.11:9093,198.18.0.12:9093,198.18.0.13:9093"}


def kafka_41_by_name(index):
    props = kafka_41(index)
    props["advertised.listeners"] = "PLAINTEXT://%s:9092,CONTROLLER://%s:9093" % ((private_dns(index),) * 2)
    props["controller.quorum.bootstrap.servers"] = ",".join("%s:9093" % private_dns(i) for i in (1, 2, 3))
    return props


def fresh_install(index):
    """A node as a package install leaves it: nothing advertised, so the machine's own name."""
    return {"listeners": "PLAINTEXT://:9092,CONTROLLER://:9093", "inter.broker.listener.name": "PLAINTEXT",
            "controller.listener.names": "CONTROLLER",
            "controller.quorum.voters": "1@%s:9093,2@%s:9093,3@%s:9093" % tuple(private_dns(i) for i in (1, 2, 3))}


def cluster(current, public_resolves=False, roles="broker,controller"):
    return [{"name": "b%d" % index, "node_id": index, "process_roles": roles, "private_host": private_dns(index),
             "private_ip": "198.18.0.1%d" % index, "public_dns": public_dns(index), "public_ip": "198.19.0.1%d" % index,
             "current_properties": None if current is None else current(index),
             "external_checks": [{"name": public_dns(other), "resolvable": public_resolves} for other in (1, 2, 3)]}
            for index in (1, 2, 3)]


def applied(plan):
    """The plan's managed keys as the next run reads them back from the files."""
    return {node["name"]: {key: value for key, value in node["properties"].items() if value is not None}
            for node in plan["brokers"]}


@pytest.mark.parametrize("current", [kafka_39, kafka_41, kafka_41_by_name])
def test_default_keeps_every_listener_and_adds_one_for_the_internet(current):
    # the VPC's resolver does not answer the public names (so the documented layout would be dual, :9092 public)
    plan = plan_listeners(cluster(current))
    b1 = plan["brokers"][0]
    props = b1["properties"]
    # the VPC's clients keep :9092 and the private names they resolve; the internet gets its own port
    assert props["advertised.listeners"] == "PLAINTEXT://%s:9092,EXTERNAL://%s:9094" % (private_dns(1), public_dns(1))
    assert props["inter.broker.listener.name"] == "PLAINTEXT"
    assert plan["clients"]["vpc"]["bootstrap"].split(",")[0] == "%s:9092" % private_dns(1)
    assert plan["clients"]["internet"]["bootstrap"].split(",")[0] == "%s:9094" % public_dns(1)
    assert plan["reason"].startswith("in service: kept PLAINTEXT :9092 for the VPC (private names); added EXTERNAL "
                                     ":9094 for the internet (public names)")
    for node in plan["brokers"]:
        assert check_kafka_config(node_properties(node), kafka_version="4.1.0") == []


def test_the_quorum_keeps_its_style_and_the_controllers_their_spelling():
    static = plan_listeners(cluster(kafka_39))
    assert static["brokers"][0]["properties"]["controller.quorum.voters"] == kafka_39(1)["controller.quorum.voters"]
    assert static["brokers"][0]["properties"]["controller.quorum.bootstrap.servers"] is None
    dynamic = plan_listeners(cluster(kafka_41))
    props = dynamic["brokers"][1]["properties"]
    assert props["controller.quorum.bootstrap.servers"] == kafka_41(2)["controller.quorum.bootstrap.servers"]
    assert props["controller.quorum.voters"] is None
    assert dynamic["brokers"][1]["controller_endpoint"] == {
        "listener": "CONTROLLER", "host": "198.18.0.12", "port": 9093}
    assert dynamic["options"] == {"inter_broker_listener": None, "controller_listener_name": "CONTROLLER",
                                  "controller_port": 9093, "controller_host": "private_ip", "quorum": "bootstrap"}
    by_name = plan_listeners(cluster(kafka_41_by_name))
    assert by_name["brokers"][0]["controller_endpoint"]["host"] == private_dns(1)


@pytest.mark.parametrize("current", [kafka_39, kafka_41, kafka_41_by_name, fresh_install])
@pytest.mark.parametrize("public_resolves", [False, True])
def test_a_rerun_plans_the_same_keys_and_networks(current, public_resolves):
    first = plan_listeners(cluster(current, public_resolves))
    keys = applied(first)
    nodes = cluster(current, public_resolves)
    for node in nodes:
        node["current_properties"] = keys[node["name"]]
    second = plan_listeners(nodes)
    assert applied(second) == keys
    assert (second["mode"], second.get("networks")) == (first["mode"], first.get("networks"))
    assert "nothing to add" in second["reason"] or second["reason"].startswith("in service, and the layout keeps")


@pytest.mark.parametrize("public_resolves", [False, True])
@pytest.mark.parametrize("current", [kafka_39, kafka_41, kafka_41_by_name])
def test_the_pinned_options_plan_the_same_listeners_without_the_current_files(current, public_resolves):
    # what the start-time program does: the stored options and the node's names, no current file
    first = plan_listeners(cluster(current, public_resolves))
    pinned = dict(first["options"], mode=first["mode"])
    if "networks" in first:
        pinned["networks"] = first["networks"]
    again = plan_listeners(cluster(None, public_resolves), pinned)
    assert applied(again) == applied(first)


def test_a_fresh_install_gets_the_documented_layout():
    plan = plan_listeners(cluster(fresh_install))
    assert plan["mode"] == "dual"
    assert plan["brokers"][0]["properties"]["advertised.listeners"].startswith("INTERNAL://")
    forced = plan_listeners(cluster(fresh_install), {"in_service": True})
    assert forced["brokers"][0]["properties"]["advertised.listeners"] == (
        "PLAINTEXT://%s:9092,EXTERNAL://%s:9094" % (private_dns(1), public_dns(1)))


def holding(nodes, partitions):
    """``nodes`` with the partition directories each keeps now ({broker name: [topic-N, ...]})."""
    return [dict(node, partitions=partitions.get(node["name"], [])) for node in nodes]


def test_a_fresh_install_holding_replicated_data_is_in_service():
    # Kafka's defaults everywhere (nothing advertised), one topic replicated on all three brokers: the VPC's clients
    # bootstrap on the machines' own names today, and the documented dual layout would rename the inter-broker
    # listener in one roll (PLAINTEXT -> INTERNAL) and give :9092 to the public names
    replicated = {"b%d" % index: ["orders-0", "orders-1", "__consumer_offsets-%d" % index] for index in (1, 2, 3)}
    plan = plan_listeners(holding(cluster(fresh_install), replicated))
    assert plan["in_service"] is True
    assert plan["reason"] == (
        "replicated data: nothing is advertised explicitly, but 2 partitions have replicas on more than one broker "
        "(orders-0, orders-1), so clients use the brokers' own names on the listeners they run now; in service: kept "
        "PLAINTEXT :9092 for the VPC (private names); added EXTERNAL :9094 for the internet (public names)")
    for index, node in enumerate(plan["brokers"], start=1):
        assert node["properties"]["advertised.listeners"] == "PLAINTEXT://%s:9092,EXTERNAL://%s:9094" % (
            private_dns(index), public_dns(index))
        assert node["properties"]["inter.broker.listener.name"] == "PLAINTEXT"
    assert plan["bootstrap_before"] == {
        "vpc": {"bootstrap": private_list(9092), "listener": "PLAINTEXT", "protocol": "PLAINTEXT"}}
    # the same plan as declaring it in service, and a re-run from the files it wrote plans the same keys
    assert applied(plan) == applied(plan_listeners(cluster(fresh_install), {"in_service": True}))
    rolled = [dict(node, current_properties=dict(fresh_install(index), **applied(plan)[node["name"]]))
              for index, node in enumerate(cluster(fresh_install), start=1)]
    again = plan_listeners(holding(rolled, replicated))
    assert applied(again) == applied(plan)


@pytest.mark.parametrize("partitions", [
    {},  # no data
    {"b1": ["orders-0"], "b2": ["orders-1"], "b3": ["orders-2"]},  # replication factor 1: nobody follows anybody
    {"b1": None, "b2": None, "b3": None},  # not known (no log directory could be listed)
])
def test_a_fresh_install_without_replicated_data_gets_the_documented_layout(partitions):
    plan = plan_listeners(holding(cluster(fresh_install), partitions))
    assert plan["in_service"] is False and plan["mode"] == "dual"
    assert plan["brokers"][0]["properties"]["inter.broker.listener.name"] == "INTERNAL"
    # declared as new, replicated data or not
    forced = plan_listeners(holding(cluster(fresh_install), {"b1": ["t-0"], "b2": ["t-0"]}), {"in_service": False})
    assert forced["in_service"] is False and forced["mode"] == "dual"


@pytest.mark.parametrize("bad", ["orders-0", [1], {"orders-0": 1}])
def test_partitions_that_are_not_a_list_of_names_are_named(bad):
    with pytest.raises(PlanError, match=r"^broker b1: partitions must be a list of partition names \(topic-N\)"):
        plan_listeners(holding(cluster(fresh_install), {"b1": bad}))


def test_a_layout_this_collection_wrote_is_kept_as_it_is():
    dual = plan_listeners(cluster(fresh_install))
    keys = applied(dual)
    nodes = cluster(fresh_install)
    for node in nodes:
        node["current_properties"] = keys[node["name"]]
    again = plan_listeners(nodes)
    assert again["mode"] == "dual" and applied(again) == keys
    assert again["reason"].startswith("in service, and the layout keeps every listener's name and port: dual: ")


def test_a_stale_public_name_is_replaced_when_the_layout_keeps_every_listener():
    dual = applied(plan_listeners(cluster(fresh_install)))
    nodes = cluster(fresh_install)
    for node in nodes:  # the instance was stopped and started: a new public name, the old one in the file
        node["current_properties"] = dual[node["name"]]
        node["public_dns"] = node["public_dns"].replace("ec2-198-19-0-1", "ec2-198-19-0-2")
    plan = plan_listeners(nodes)
    assert plan["mode"] == "dual"
    assert plan["brokers"][0]["properties"]["advertised.listeners"].endswith(
        "EXTERNAL://ec2-198-19-0-21.us-west-2.compute.amazonaws.com:9092")


def test_split_horizon_public_names_replace_private_ones_on_the_same_listener():
    # the documented single layout keeps PLAINTEXT :9092: the VPC's clients get public names, which resolve there
    plan = plan_listeners(cluster(kafka_41_by_name, public_resolves=True))
    assert plan["mode"] == "single"
    assert plan["brokers"][0]["properties"]["advertised.listeners"] == "PLAINTEXT://%s:9092" % public_dns(1)


def test_public_names_that_already_serve_everybody_get_nothing_added():
    def single(index):
        return dict(kafka_39(index), **{"advertised.listeners": "PLAINTEXT://%s:9092" % public_dns(index)})
    plan = plan_listeners(cluster(single, public_resolves=True))
    assert plan["brokers"][0]["properties"]["advertised.listeners"] == "PLAINTEXT://%s:9092" % public_dns(1)
    # the documented single layout keeps it all (the controllers at their private IPs too), so it is the plan
    assert plan["mode"] == "single"
    assert plan["options"] == {"controller_listener_name": "CONTROLLER", "controller_port": 9093,
                               "controller_host": "private_ip", "quorum": "voters"}
    assert plan["brokers"][0]["properties"]["controller.quorum.voters"] == kafka_39(1)["controller.quorum.voters"]
    # public names on a port of their own, next to a listener the brokers talk on: nothing to add

    def beside(index):
        return dict(kafka_39(index), **{
            "listeners": "PLAINTEXT://:9092,PUBLIC://:9096,CONTROLLER://:9093",
            "advertised.listeners": "PLAINTEXT://%s:9092,PUBLIC://%s:9096" % (private_dns(index), public_dns(index)),
            "listener.security.protocol.map": SHIPPED_MAP + ",PUBLIC:SSL"})
    plan = plan_listeners(cluster(beside, public_resolves=True))
    assert plan["reason"].endswith("kept PLAINTEXT :9092 for the VPC (private names); PUBLIC :9096 for the internet "
                                   "and the VPC (public names); nothing to add (every client network is served)")


def test_public_names_the_vpc_cannot_resolve_get_a_listener_for_the_vpc():
    def public_only(index):
        return dict(kafka_39(index), **{"advertised.listeners": "PLAINTEXT://%s:9092" % public_dns(index)})

    def public_clients(index):
        return dict(kafka_39(index), **{
            "listeners": "PLAINTEXT://:9092,CLIENTS://:9096,CONTROLLER://:9093",
            "advertised.listeners": "PLAINTEXT://kafka-%d.corp.example:9092,CLIENTS://%s:9096" % (
                index, public_dns(index)),
            "listener.security.protocol.map": SHIPPED_MAP + ",CLIENTS:SASL_SSL"})
    plan = plan_listeners(cluster(public_clients, public_resolves=False))
    props = plan["brokers"][0]["properties"]
    # the brokers talk over names of a private zone (kept as written: whose clients resolve them is not known); the
    # VPC's clients cannot resolve the public names, so the VPC gets a listener on the names the cloud gives
    assert props["advertised.listeners"] == (
        "PLAINTEXT://kafka-1.corp.example:9092,CLIENTS://%s:9096,INTERNAL://%s:19092" % (public_dns(1), private_dns(1)))
    # the inter-broker listener keeps its name: renaming it cannot roll one broker at a time
    assert props["inter.broker.listener.name"] == "PLAINTEXT"
    assert plan["clients"]["vpc"]["bootstrap"].split(",")[0] == "%s:19092" % private_dns(1)
    # an inter-broker listener on names the brokers cannot resolve does not work today: refused, named
    with pytest.raises(PlanError, match=r"carries the inter-broker listener PLAINTEXT, which every broker must reach"):
        plan_listeners(cluster(public_only, public_resolves=False))


def test_endpoints_that_are_none_of_the_brokers_names_are_kept_as_written():
    def behind_nat(index):
        return dict(kafka_39(index), **{
            "listeners": "PLAINTEXT://:9092,NAT://:9095,CONTROLLER://:9093",
            "advertised.listeners": "PLAINTEXT://%s:9092,NAT://gw.example.net:%d" % (private_dns(index), 30000 + index),
            "listener.security.protocol.map": SHIPPED_MAP + ",NAT:SSL"})
    plan = plan_listeners(cluster(behind_nat))
    props = plan["brokers"][2]["properties"]
    assert props["advertised.listeners"] == ("PLAINTEXT://%s:9092,NAT://gw.example.net:30003,EXTERNAL://%s:9094"
                                             % (private_dns(3), public_dns(3)))
    assert "NAT:SSL" in props["listener.security.protocol.map"]
    assert "0.0.0.0:9095" in props["listeners"]


def test_an_explicit_external_port_that_clients_use_is_refused_by_name():
    with pytest.raises(PlanError, match=r"option external_port: port 9093 is listener CONTROLLER's now"):
        plan_listeners(cluster(kafka_39), {"external_port": 9093})
    plan = plan_listeners(cluster(kafka_39), {"external_port": 9192})
    assert plan["clients"]["internet"]["bootstrap"].endswith(":9192")


def test_the_added_port_skips_ports_in_use():
    def taken(index):
        return dict(kafka_39(index), listeners="PLAINTEXT://:9092,CONTROLLER://:9094")
    plan = plan_listeners(cluster(taken))
    assert plan["clients"]["internet"]["bootstrap"].endswith(":9095")


@pytest.mark.parametrize("mode", ["dual", "single"])
def test_an_explicit_layout_that_renames_the_inter_broker_listener_is_refused_on_a_cluster_in_service(mode):
    with pytest.raises(PlanError, match=r"KRaft cluster in service: the plan renames the inter-broker listener "
                                        r"\(PLAINTEXT -> (INTERNAL|PLAINTEXT)\)|Kafka's startup|renames") as info:
        nodes = cluster(kafka_39, public_resolves=True)
        plan_listeners(nodes, {"mode": mode, "internal_listener_name": "INTERNAL", "single_listener_name": "CLIENTS"})
    assert "Nothing was written" in str(info.value)
    # the same layout on a cluster that holds nothing yet
    plan = plan_listeners(cluster(kafka_39), {"mode": "dual", "in_service": False})
    assert plan["brokers"][0]["inter_broker_listener"] == "INTERNAL"


def test_brokers_half_way_through_a_rename_are_named():
    def half(index):
        return dict(kafka_39(index), **{"inter.broker.listener.name": "INTERNAL" if index == 1 else "PLAINTEXT",
                                        "listeners": "PLAINTEXT://:9092,INTERNAL://:19092,CONTROLLER://:9093",
                                        "advertised.listeners": "PLAINTEXT://%s:9092,INTERNAL://%s:19092" % (
                                            private_dns(index), private_dns(index)),
                                        "listener.security.protocol.map": SHIPPED_MAP + ",INTERNAL:PLAINTEXT"})
    with pytest.raises(PlanError, match=r"different inter-broker listeners now \(INTERNAL, PLAINTEXT\)"):
        plan_listeners(cluster(half))


@pytest.mark.parametrize("bad", ["auto-ish", 3, None.__class__])
def test_in_service_option_is_checked(bad):
    with pytest.raises(PlanError, match="option in_service"):
        plan_listeners(cluster(kafka_39), {"in_service": bad})


def test_a_current_file_that_does_not_parse_is_named():
    def broken(index):
        return dict(kafka_39(index), **{"advertised.listeners": "PLAINTEXT//nohost"})
    with pytest.raises(PlanError, match=r"broker b1: advertised.listeners 'PLAINTEXT//nohost' in its current file"):
        plan_listeners(cluster(broken))


PHASE_ONE = [{"name": "vpc", "route": "private", "listener": "PLAINTEXT", "port": 9092, "inter_broker": True},
             {"name": "internet", "route": "public", "listener": "EXTERNAL", "port": 9094},
             {"name": "brokers", "route": "private", "listener": "INTERNAL", "port": 19092}]


def test_a_rename_goes_through_in_three_runs_of_the_documented_options():
    """The options of docs/docsite/rst/in-service.rst: add, switch once every broker runs the new listener, remove."""
    options = {"controller_host": "private_ip", "networks": PHASE_ONE}
    nodes = cluster(kafka_39)
    # the switch before every broker runs INTERNAL is refused
    switched = [dict(item, inter_broker=item["listener"] == "INTERNAL") for item in PHASE_ONE]
    with pytest.raises(PlanError, match=r"renames the inter-broker listener \(PLAINTEXT -> INTERNAL\)"):
        plan_listeners(nodes, dict(options, networks=switched))
    first = plan_listeners(nodes, options)
    assert first["brokers"][0]["properties"]["inter.broker.listener.name"] == "PLAINTEXT"
    for node in nodes:
        node["current_properties"] = applied(first)[node["name"]]
    second = plan_listeners(nodes, dict(options, networks=switched))
    assert second["brokers"][0]["properties"]["inter.broker.listener.name"] == "INTERNAL"
    assert second["brokers"][0]["properties"]["controller.quorum.voters"] == kafka_39(1)["controller.quorum.voters"]
    for node in nodes:
        node["current_properties"] = applied(second)[node["name"]]
    third = plan_listeners(nodes, dict(options, networks=switched[1:]))
    assert third["brokers"][0]["properties"]["advertised.listeners"] == (
        "EXTERNAL://%s:9094,INTERNAL://%s:19092" % (public_dns(1), private_dns(1)))


def test_a_rename_on_a_single_broker_is_not_refused():
    # one broker fetches from nobody: the docker layout's rename of a container's listeners rolls in one restart
    nodes = cluster(kafka_39)[:1]
    nodes[0]["current_properties"]["controller.quorum.voters"] = "1@198.18.0.11:9093"
    plan = plan_listeners(nodes, {"mode": "dual"})
    assert plan["brokers"][0]["inter_broker_listener"] == "INTERNAL"


def test_a_rollout_of_the_documented_layout_stopped_half_way_finishes():
    """b1 took the dual layout, then the run stopped; b2 and b3 still run what a package install left."""
    dual = applied(plan_listeners(cluster(fresh_install)))
    nodes = cluster(fresh_install)
    nodes[0]["current_properties"] = dual["b1"]
    for node in nodes[1:]:  # a package install's quorum: the voters at the private IPs
        node["current_properties"]["controller.quorum.voters"] = kafka_39(1)["controller.quorum.voters"]
    plan = plan_listeners(nodes)
    assert plan["mode"] == "dual" and applied(plan) == dual


@pytest.mark.parametrize("current", [kafka_39, kafka_41])
def test_the_options_as_the_broker_role_passes_them_plan_the_same(current):
    """The role passes every option, its defaults included (listener_plan_options): none of them counts as set."""
    from ansible_collections.kafkaops.listeners.plugins.module_utils._listener_plan import plan_options
    assert applied(plan_listeners(cluster(current), plan_options(None))) == applied(plan_listeners(cluster(current)))
    moved = plan_listeners(cluster(current), plan_options({"external_port": 9192}))
    assert moved["clients"]["internet"]["bootstrap"].endswith(":9192")


def test_public_names_that_the_vpc_resolves_serve_its_clients_on_the_same_listener():
    def clients(index):
        return dict(kafka_39(index), **{
            "listeners": "CLIENTS://:9092,CONTROLLER://:9093", "inter.broker.listener.name": "CLIENTS",
            "advertised.listeners": "CLIENTS://%s:9092" % public_dns(index),
            "listener.security.protocol.map": SHIPPED_MAP + ",CLIENTS:SSL"})
    plan = plan_listeners(cluster(clients, public_resolves=True))
    assert plan["brokers"][0]["properties"]["advertised.listeners"] == "CLIENTS://%s:9092" % public_dns(1)
    assert plan["clients"]["vpc"]["listener"] == plan["clients"]["internet"]["listener"] == "CLIENTS"
    assert plan["reason"].endswith("kept CLIENTS :9092 for the internet and the VPC (public names); nothing to add "
                                   "(every client network is served)")


def private_list(port):
    return ",".join("%s:%d" % (private_dns(index), port) for index in (1, 2, 3))


@pytest.mark.parametrize("current", [kafka_39, kafka_41, kafka_41_by_name])
def test_the_bootstrap_before_is_the_listener_the_vpc_uses_now_and_the_default_keeps_it(current):
    plan = plan_listeners(cluster(current))
    assert plan["bootstrap_before"] == {
        "vpc": {"bootstrap": private_list(9092), "listener": "PLAINTEXT", "protocol": "PLAINTEXT"}}
    # the default keeps it: the VPC's clients bootstrap on what they use today
    assert plan["clients"]["vpc"]["bootstrap"] == plan["bootstrap_before"]["vpc"]["bootstrap"]


@pytest.mark.parametrize("options", [{"in_service": False}, {"mode": "dual", "in_service": False}])
def test_the_bootstrap_before_survives_a_plan_of_the_cluster_as_new(options):
    """The trap of issue 26: planned as new, the dual layout moves :9092 to the public names; the bootstrap the VPC's
    clients use today is still recorded, so the verify role can check it after the run."""
    plan = plan_listeners(cluster(kafka_39), options)
    assert plan["in_service"] is False
    assert plan["clients"]["vpc"]["bootstrap"] == private_list(19092)
    assert plan["brokers"][0]["properties"]["advertised.listeners"].endswith("EXTERNAL://%s:9092" % public_dns(1))
    assert plan["bootstrap_before"]["vpc"] == {"bootstrap": private_list(9092), "listener": "PLAINTEXT",
                                               "protocol": "PLAINTEXT"}


def test_a_fresh_cluster_has_no_bootstrap_before_unless_it_is_declared_in_service():
    assert plan_listeners(cluster(fresh_install))["bootstrap_before"] == {}
    assert plan_listeners(cluster(None))["bootstrap_before"] == {}
    # in_service: true says the clients use the machines' own names on the listeners already
    forced = plan_listeners(cluster(fresh_install), {"in_service": True})
    assert forced["bootstrap_before"] == {
        "vpc": {"bootstrap": private_list(9092), "listener": "PLAINTEXT", "protocol": "PLAINTEXT"}}


def test_the_bootstrap_before_of_each_network_follows_the_names_advertised():
    def three(index):
        return dict(kafka_39(index), **{
            "listeners": "PLAINTEXT://:9092,PUBLIC://:9096,NAT_GW://:9095,CONTROLLER://:9093",
            "advertised.listeners": "PUBLIC://%s:9096,PLAINTEXT://198.18.0.1%d:9092,NAT_GW://gw.example.net:%d" % (
                public_dns(index), index, 30000 + index),
            "listener.security.protocol.map": SHIPPED_MAP + ",PUBLIC:SSL,NAT_GW:SASL_SSL"})
    before = plan_listeners(cluster(three, public_resolves=True))["bootstrap_before"]
    # a private listener serves the VPC even when the split-horizon public names come first
    assert before["vpc"] == {"bootstrap": ",".join("198.18.0.1%d:9092" % i for i in (1, 2, 3)),
                             "listener": "PLAINTEXT", "protocol": "PLAINTEXT"}
    assert before["internet"] == {"bootstrap": ",".join("%s:9096" % public_dns(i) for i in (1, 2, 3)),
                                  "listener": "PUBLIC", "protocol": "SSL"}
    assert before["nat-gw"]["bootstrap"] == "gw.example.net:30001,gw.example.net:30002,gw.example.net:30003"

    def split(index):
        return dict(kafka_39(index), **{"advertised.listeners": "PLAINTEXT://%s:9092" % public_dns(index)})
    assert plan_listeners(cluster(split, public_resolves=True))["bootstrap_before"]["vpc"]["bootstrap"] == ",".join(
        "%s:9092" % public_dns(i) for i in (1, 2, 3))
    assert "vpc" not in plan_listeners(cluster(split, public_resolves=False), {"in_service": False})[
        "bootstrap_before"]


def test_a_network_two_listeners_serve_keeps_both_in_the_brokers_order():
    """The add phase of a rename: PLAINTEXT :9092 and INTERNAL :19092 both advertise the private names, so the VPC's
    clients may bootstrap on either; the first stays the entry, the other follows under also."""
    def added(index):
        return dict(kafka_39(index), **{
            "listeners": "PLAINTEXT://:9092,INTERNAL://:19092,CONTROLLER://:9093",
            "advertised.listeners": "PLAINTEXT://%s:9092,INTERNAL://%s:19092" % ((private_dns(index),) * 2),
            "listener.security.protocol.map": SHIPPED_MAP + ",INTERNAL:SSL"})
    before = plan_listeners(cluster(added))["bootstrap_before"]
    assert before == {"vpc": {"bootstrap": private_list(9092), "listener": "PLAINTEXT", "protocol": "PLAINTEXT",
                              "also": [{"bootstrap": private_list(19092), "listener": "INTERNAL", "protocol": "SSL"}]}}


def test_loopback_and_half_rolled_brokers_give_what_other_machines_can_use():
    def loopback(index):
        return dict(kafka_39(index), **{"advertised.listeners": "PLAINTEXT://localhost:9092"})
    assert plan_listeners(cluster(loopback))["bootstrap_before"] == {}

    def half(index):  # b3 still advertises nothing: a rollout stopped half-way
        return kafka_39(index) if index < 3 else fresh_install(index)
    assert plan_listeners(cluster(half))["bootstrap_before"]["vpc"]["bootstrap"] == ",".join(
        "%s:9092" % private_dns(i) for i in (1, 2))


# the layout asked for: INTERNAL between the brokers, EXTERNAL for the internet, PLAINTEXT gone
RENAMED = [{"name": "internet", "route": "public", "listener": "EXTERNAL", "port": 9094},
           {"name": "brokers", "route": "private", "listener": "INTERNAL", "port": 19092, "inter_broker": True}]


def phase_of(plan):
    return [item["phase"] for item in plan.get("phases", [])]


@pytest.mark.parametrize("current", [kafka_39, kafka_41])
def test_in_phases_a_rename_goes_add_switch_remove_and_resumes_from_what_the_files_hold(current):
    options = {"controller_host": "private_ip", "networks": RENAMED, "in_phases": True}
    if current is kafka_41:
        options["quorum"] = "bootstrap"
    nodes = cluster(current)
    first = plan_listeners(nodes, options)
    assert phase_of(first) == ["add", "switch", "remove"]
    assert first["reason"].startswith(
        "in phases, the inter-broker listener renamed PLAINTEXT -> INTERNAL: now phase 1 of 3 (add): add the new "
        "listeners beside PLAINTEXT, which stays the inter-broker listener; to come in the next rolling restarts: "
        "phase 2 of 3 (switch): switch inter.broker.listener.name from PLAINTEXT to INTERNAL, PLAINTEXT still running "
        "on every broker; phase 3 of 3 (remove): remove listener PLAINTEXT"), first["reason"]
    b1 = applied(first)["b1"]
    assert b1["inter.broker.listener.name"] == "PLAINTEXT"
    assert b1["advertised.listeners"].split(",")[:3] == [
        "EXTERNAL://%s:9094" % public_dns(1), "INTERNAL://%s:19092" % private_dns(1),
        "PLAINTEXT://%s:9092" % private_dns(1)]
    # the quorum as it runs, in every phase
    quorum = [key for key in ("controller.quorum.voters", "controller.quorum.bootstrap.servers") if key in b1]
    assert [b1[key] for key in quorum] == [current(1)[key] for key in quorum]
    # what the start-time program re-plans a node from is this phase, not the target
    assert first["options"]["in_phases"] is False and first["networks"][-1]["listener"] == "PLAINTEXT"

    # the run stopped after b1 took phase 1: the next run is still in phase 1 (b2 and b3 do not run INTERNAL)
    nodes[0]["current_properties"] = b1
    assert phase_of(plan_listeners(nodes, options)) == ["add", "switch", "remove"]
    for node in nodes:
        node["current_properties"] = applied(first)[node["name"]]
    second = plan_listeners(nodes, options)
    assert phase_of(second) == ["switch", "remove"]
    assert "now phase 2 of 3 (switch)" in second["reason"]
    assert applied(second)["b1"]["inter.broker.listener.name"] == "INTERNAL"
    assert "PLAINTEXT://0.0.0.0:9092" in applied(second)["b1"]["listeners"]
    # stopped in the middle of phase 2: b1 switched, b2 and b3 not yet
    nodes[0]["current_properties"] = applied(second)["b1"]
    assert phase_of(plan_listeners(nodes, options)) == ["switch", "remove"]
    for node in nodes:
        node["current_properties"] = applied(second)[node["name"]]
    third = plan_listeners(nodes, options)
    assert phase_of(third) == []  # the target itself: nobody replicates over PLAINTEXT any more
    assert applied(third)["b1"]["advertised.listeners"].startswith(
        "EXTERNAL://%s:9094,INTERNAL://%s:19092" % (public_dns(1), private_dns(1)))
    assert "PLAINTEXT://" not in applied(third)["b1"]["listeners"]
    for node in nodes:
        node["current_properties"] = applied(third)[node["name"]]
    assert applied(plan_listeners(nodes, options)) == applied(third)


def test_in_phases_a_target_that_keeps_the_old_listener_takes_two_phases():
    switched = [dict(item, inter_broker=item["listener"] == "INTERNAL") for item in PHASE_ONE]
    options = {"controller_host": "private_ip", "networks": switched, "in_phases": "yes"}
    nodes = cluster(kafka_39)
    first = plan_listeners(nodes, options)
    assert phase_of(first) == ["add", "switch"] and "now phase 1 of 2 (add)" in first["reason"]
    # the same files as the three-run recipe's first run
    recipe = {"controller_host": "private_ip", "networks": PHASE_ONE}
    assert applied(first) == applied(plan_listeners(cluster(kafka_39), recipe))
    for node in nodes:
        node["current_properties"] = applied(first)[node["name"]]
    # the switch keeps every listener: it is the layout asked for, named as the last phase
    second = plan_listeners(nodes, options)
    assert phase_of(second) == ["switch"] and "now phase 2 of 2 (switch)" in second["reason"]
    assert applied(second) == applied(plan_listeners(nodes, dict(options, in_phases=False)))
    assert {props["inter.broker.listener.name"] for props in applied(second).values()} == {"INTERNAL"}
    assert all("PLAINTEXT://0.0.0.0:9092" in props["listeners"] for props in applied(second).values())
    for node in nodes:
        node["current_properties"] = applied(second)[node["name"]]
    assert "phases" not in plan_listeners(nodes, options)


def test_without_in_phases_a_switch_that_also_removes_the_old_listener_is_refused():
    # every broker runs INTERNAL beside PLAINTEXT; switching and removing PLAINTEXT in one roll would leave the brokers
    # not restarted yet fetching over PLAINTEXT from restarted ones that no longer run it
    nodes = cluster(kafka_39)
    first = plan_listeners(nodes, {"controller_host": "private_ip", "networks": PHASE_ONE})
    for node in nodes:
        node["current_properties"] = applied(first)[node["name"]]
    with pytest.raises(PlanError, match=r"renames the inter-broker listener \(PLAINTEXT -> INTERNAL\).*in_phases"):
        plan_listeners(nodes, {"controller_host": "private_ip", "networks": RENAMED})


@pytest.mark.parametrize("options, message", [
    ({"mode": "dual", "external_port": 9094},
     r"option in_phases: the rename of the inter-broker listener \(PLAINTEXT -> INTERNAL\) goes in phases from a "
     r"layout given as option networks.*mode dual is not"),
    ({"networks": [dict(RENAMED[0], port=9092), RENAMED[1]]},
     r"listener PLAINTEXT, which the brokers replicate over now, binds :9092, and the networks option gives that port "
     r"to listener EXTERNAL.*give EXTERNAL another port"),
    ({"networks": [dict(PHASE_ONE[0], port=9095, inter_broker=False), PHASE_ONE[1],
                   dict(PHASE_ONE[2], inter_broker=True)]},
     r"network vpc gives listener PLAINTEXT port 9095.*on :9092 \(PLAINTEXT\) now"),
    ({"networks": RENAMED, "in_phases": "perhaps"}, r"option in_phases: 'perhaps' is not true or false"),
    # the old listener, still the inter-broker listener in phase 1, moved to public names the brokers do not resolve
    ({"networks": [dict(PHASE_ONE[0], route="public", inter_broker=False), PHASE_ONE[1],
                   dict(PHASE_ONE[2], inter_broker=True)]},
     r"network vpc \(route public\) carries the inter-broker listener PLAINTEXT, which every broker must reach: "
     r"host ec2-198-19-0-11\S+ of broker b1 does not resolve from broker b1, b2, b3"),
])
def test_in_phases_refuses_what_cannot_go_in_phases_naming_it(options, message):
    with pytest.raises(PlanError, match=message):
        plan_listeners(cluster(kafka_39), dict({"controller_host": "private_ip", "in_phases": True}, **options))


def test_in_phases_false_as_text_is_false():
    with pytest.raises(PlanError, match=r"renames the inter-broker listener"):
        plan_listeners(cluster(kafka_39), {"controller_host": "private_ip", "networks": RENAMED, "in_phases": "false"})


def test_in_phases_a_zookeeper_mode_rename_goes_in_phases_too():
    """In ZooKeeper mode the controller reaches each broker by its own inter-broker listener name, so a rename is
    refused in one roll even on a cluster without data; in phases every broker keeps PLAINTEXT until the switch."""
    def zookeeper(index):
        return {"listeners": "PLAINTEXT://:9092", "advertised.listeners": "PLAINTEXT://%s:9092" % private_dns(index),
                "inter.broker.listener.name": "PLAINTEXT"}
    nodes = cluster(zookeeper, roles="")
    with pytest.raises(PlanError, match=r"ZooKeeper mode: the plan renames the inter-broker listener"):
        plan_listeners(nodes, {"networks": RENAMED})
    first = plan_listeners(nodes, {"networks": RENAMED, "in_phases": True})
    assert phase_of(first) == ["add", "switch", "remove"]
    assert {props["inter.broker.listener.name"] for props in applied(first).values()} == {"PLAINTEXT"}
    assert all("controller.quorum.voters" not in props for props in applied(first).values())
    for node in nodes:
        node["current_properties"] = applied(first)[node["name"]]
    second = plan_listeners(nodes, {"networks": RENAMED, "in_phases": True})
    assert phase_of(second) == ["switch", "remove"]
    assert {props["inter.broker.listener.name"] for props in applied(second).values()} == {"INTERNAL"}


def secured_fresh(index):
    """A secured cluster as started: INTERNAL and EXTERNAL on SASL_SSL, nothing advertised (the machine's own name)."""
    return {"listeners": "INTERNAL://:19092,EXTERNAL://:9092,CONTROLLER://:9093",
            "inter.broker.listener.name": "INTERNAL",
            "listener.security.protocol.map": "INTERNAL:SASL_SSL,EXTERNAL:SASL_SSL,CONTROLLER:SSL",
            "controller.listener.names": "CONTROLLER",
            "controller.quorum.voters": kafka_39(1)["controller.quorum.voters"]}


def test_a_listener_the_vpc_uses_on_private_names_is_not_moved_to_public_names_the_vpc_does_not_resolve():
    """The VPC's clients bootstrap on :9092 (EXTERNAL, the brokers' own names); the dual layout would keep the
    listener's name, port and protocol but advertise the public names there, which the VPC does not resolve."""
    nodes = cluster(secured_fresh)
    for node in nodes:
        node["partitions"] = ["orders-0", "orders-1"]
    with pytest.raises(PlanError, match=r"cluster in service: option external_listener_name: EXTERNAL is a listener "
                                        r"the cluster runs now; name the listener for the internet another way"):
        plan_listeners(nodes, {"controller_host": "private_ip"})
    plan = plan_listeners(nodes, {"controller_host": "private_ip", "external_listener_name": "PUBLIC",
                                  "security_protocols": {"PUBLIC": "SASL_SSL"}})
    b1 = applied(plan)["b1"]
    assert b1["advertised.listeners"] == (
        "INTERNAL://%s:19092,EXTERNAL://%s:9092,PUBLIC://%s:9094" % (private_dns(1), private_dns(1), public_dns(1)))
    assert "PUBLIC:SASL_SSL" in b1["listener.security.protocol.map"] and b1["inter.broker.listener.name"] == "INTERNAL"


def switched_cluster():
    """The cluster of RENAMED after its add and switch phases: the next plan in phases is the remove phase."""
    options = {"controller_host": "private_ip", "networks": RENAMED, "in_phases": True}
    nodes = cluster(kafka_39)
    for _phase in ("add", "switch"):
        plan = plan_listeners(nodes, options)
        for node in nodes:
            node["current_properties"] = applied(plan)[node["name"]]
    return nodes, options


def records_showing(*servers, network="vpc"):
    """What the records reader answers: ``network``'s newest verify run bootstrapped on ``servers``."""
    used = {network: {"bootstrap": list(servers), "listener": "PLAINTEXT", "protocol": "PLAINTEXT",
                      "run_id": "20261129T101500Z-ab12", "observed_at": "2026-11-29T10:15:00Z"}}
    return lambda: (used, [], "/srv/records (cluster kafka_brokers)")


# the old listener's port on the name it advertises (any case, a trailing dot), on a broker's IP, on a public name
@pytest.mark.parametrize("server", ["%s:9092" % private_dns(1), "IP-198-18-0-11.us-west-2.compute.internal.:9092",
                                    "198.18.0.12:9092", "%s:9092" % public_dns(3)])
def test_in_phases_the_remove_phase_is_refused_while_a_networks_records_show_the_old_listener(server):
    nodes, options = switched_cluster()
    with pytest.raises(PlanError) as refused:
        plan_listeners(nodes, options, records=records_showing(server, "%s:9092" % private_dns(2)))
    message = str(refused.value)
    for part in ("option in_phases: the remove phase would take listener PLAINTEXT (:9092) away",
                 "the newest verify records of client network vpc in /srv/records (cluster kafka_brokers)",
                 "(run 20261129T101500Z-ab12 at 2026-11-29T10:15:00Z) show its clients bootstrapping on %s" % server,
                 "Move that network's clients to one of the listeners the layout gives its networks (EXTERNAL :9094, "
                 "INTERNAL :19092)",
                 "run the verify role from it again", "set broker_remove_listener_in_use",
                 "Nothing was written"):
        assert part in message, message


def test_in_phases_the_remove_phase_goes_ahead_with_records_on_the_new_port_only():
    nodes, options = switched_cluster()
    # a host on :9092 that the old listener does not advertise and no broker is (another listener's load balancer)
    plan = plan_listeners(nodes, options, records=records_showing(
        "%s:19092" % private_dns(1), "198.18.0.12:19092", "kafka-lb.example.com:9092"))
    assert "PLAINTEXT://" not in applied(plan)["b1"]["listeners"]
    assert plan["reason"].startswith(
        "in phases, the last (remove): remove PLAINTEXT (:9092): no client network's newest verify records in "
        "/srv/records (cluster kafka_brokers) show a bootstrap on it (vpc); "), plan["reason"]


@pytest.mark.parametrize("records", [None, lambda: ({}, [], "/srv/records (cluster kafka_brokers)")])
def test_in_phases_the_remove_phase_goes_ahead_without_records_and_says_none_were_found(records):
    nodes, options = switched_cluster()
    plan = plan_listeners(nodes, options, records=records)
    assert "PLAINTEXT://" not in applied(plan)["b1"]["listeners"]
    assert "remove PLAINTEXT (:9092): no verify records of this cluster were found " in plan["reason"]
    assert "(only the verify role's records can show a listener in use)" in plan["reason"]


def test_in_phases_the_remove_phase_goes_ahead_when_asked_to_remove_a_listener_in_use():
    nodes, options = switched_cluster()
    plan = plan_listeners(nodes, options, records=records_showing("198.18.0.11:9092"), remove_in_use=True)
    assert "PLAINTEXT://" not in applied(plan)["b1"]["listeners"]
    assert plan["reason"].startswith("in phases, the last (remove): remove PLAINTEXT (:9092) although the newest "
                                     "verify records show vpc bootstrapping on 198.18.0.11:9092 (remove_in_use); ")


def test_in_phases_the_way_out_names_the_new_listener_of_a_network_the_layout_serves():
    nodes, options = switched_cluster()
    options["networks"] = RENAMED + [{"name": "vpc", "route": "private", "listener": "INTERNAL", "port": 19092}]
    with pytest.raises(PlanError, match=r"Move that network's clients to listener INTERNAL \(bootstrap "
                                        r"ip-198-18-0-11\.us-west-2\.compute\.internal:19092,"):
        plan_listeners(nodes, options, records=records_showing("198.18.0.13:9092"))


def test_a_remove_phase_planned_only_is_not_refused_and_says_what_a_run_applying_it_refuses():
    """The verify playbook plans without applying: refusing there would keep the clients' new bootstrap unrecorded."""
    nodes, options = switched_cluster()
    plan = plan_listeners(nodes, options, records=records_showing("198.18.0.11:9092"), applied=False)
    assert plan["reason"].startswith(
        "in phases, the last (remove): remove PLAINTEXT (:9092), which a run applying this plan refuses while the "
        "newest verify records show vpc bootstrapping on 198.18.0.11:9092; "), plan["reason"]


def test_in_phases_the_add_and_switch_phases_do_not_read_the_records():
    def unread():
        raise AssertionError("records read before the remove phase")
    options = {"controller_host": "private_ip", "networks": RENAMED, "in_phases": True}
    assert phase_of(plan_listeners(cluster(kafka_39), options, records=unread)) == ["add", "switch", "remove"]
