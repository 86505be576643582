"""The scenario matrix: every lab scenario, from instance metadata to real clients on the planned listeners.

For each scenario one lab is brought up (fresh install: PLAINTEXT://:9092, nothing advertised) and, in file order:
1. kafkaops.listeners.instance_metadata runs over SSH on every Kafka host and reports that host's own values from
   `lab status` (null where the cloud's metadata has none: DNS names off AWS/GCP/OpenStack, OCI's public IP);
   an IMDSv1-only AWS node is refused unless allow_imdsv1 is set.
2. The project's planner turns those facts (and each broker's resolvability check of the public names, as
   roles/broker does) into the listener layout; it is written into each host's server.properties (or the Docker
   env file) and every broker restarts with the lab's service script.
3. From every client network, kcat, confluent-kafka and kafka-python produce and consume on the listener meant for
   that network, and fail with that network's error on a listener meant for another one.
4. kafka_metadata lists the same brokers as `kcat -L` on the same bootstrap server, and names the advertised
   endpoints that client cannot use.

What each client meets on a listener not meant for it follows from the lab's networks (scenario_matrix.
expected_outcome): a name the network's resolver does not know -> "Failed to resolve"; a private address from the
internet -> "Network is unreachable" (the router rejects it); `localhost` advertised to another machine ->
"Connection refused"; the VPC's public IPs from inside -> it works (hairpin NAT), which is asserted too.

dns-blackhole (the VPC resolver drops every query once the brokers run) expects, and asserts:
- every broker's resolvability check ends at its timeout ("timed out after 2.0 s"), so the plan is dual;
- the planned brokers cannot start while the VPC resolver is dark: the controller listener is bound on the
  broker's private DNS name, and resolving it fails ("Temporary failure in name resolution"); they start once it
  answers again, and the resolver then goes dark again;
- with the resolver dark the brokers cannot resolve each other, and each still lists all (as real Kafka does);
- VPC clients fail on every name with "Temporary failure in name resolution" (bounded by the clients' own
  timeouts: glibc's resolv.conf timeout:1 attempts:2); the laptop, on the internet resolver, works.

Run: cd /work/main && .venv/bin/pytest lab/tests/test_scenario_matrix.py -q   (root; ~5 min on 2 cores when
the machine is otherwise quiet, longer under load: every client is a real process)
"""

from __future__ import annotations

import pytest
import scenario_matrix as sm

from ansible_collections.kafkaops.listeners.plugins.module_utils._hostport import parse_hostport
from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import parse_properties
from kafkaops_lab.pytest_plugin import scenario_lab

pytestmark = pytest.mark.lab

# The layout the planner must choose on each scenario's facts ("dual" where not listed).
EXPECTED_MODE = {"aws-split-horizon": "single", "docker-host": "docker"}
# Scenarios whose instance metadata has no public address: the plan gives internet clients no listener.
NO_PUBLIC_ADDRESS_IN_METADATA = {"oci"}
CLIENT_TIMEOUT_S = 6.0  # each client's own bound (message.timeout.ms / max_block_ms) where it is expected to fail
ROUND_TRIP_TIMEOUT_S = 20.0  # each client's own bound where it is expected to work (a hang guard)
LIBRARIES = ("kcat", "confluent-kafka", "kafka-python")


class MatrixLab:
    """One scenario's lab and what the tests learn about it, shared by the module's tests in file order."""

    def __init__(self, lab, scenario: str):
        self.lab = lab
        self.scenario = scenario
        self.status = lab.status
        self.provider = self.status["provider"]
        self.hosts = sm.kafka_hosts(lab)
        self._metadata: dict | None = None
        self.plan: dict | None = None

    def node(self, name: str) -> dict:
        return self.lab.node(name)

    def clients(self) -> list[dict]:
        return [node for node in self.status["nodes"] if node.get("client_network")]

    def metadata_results(self) -> dict:
        """instance_metadata on every Kafka host over SSH (run once): {host: (status, result)}."""
        if self._metadata is None:
            self._metadata, _warnings = sm.ansible_module(self.lab, "kafka_brokers:kafka_controllers",
                                                          "kafkaops.listeners.instance_metadata",
                                                          "dmi_path={{ kafka_dmi_path }}")
        return self._metadata

    def applied_plan(self) -> dict:
        if self.plan is None:
            pytest.fail(f"{self.scenario}: the planned layout was not applied (see the layout test's failure)")
        return self.plan


@pytest.fixture(scope="module", params=sm.SCENARIOS)
def matrix(request, lab_kcat_required):
    """One lab per scenario, up for the module's tests of that scenario, always torn down."""
    with scenario_lab(request.param) as lab:
        yield MatrixLab(lab, request.param)


# ------------------------------------------------------------------------------------------------ 1. metadata


def test_instance_metadata_over_ssh_is_each_hosts_own(matrix):
    results = matrix.metadata_results()
    assert sorted(results) == sorted(matrix.hosts)
    for host in matrix.hosts:
        status, result = results[host]
        assert status == "SUCCESS", (host, result)
        expected = sm.expected_metadata(matrix.node(host), matrix.provider)
        reported = {key: result["instance_metadata"][key] for key in expected}
        assert reported == expected, host
        assert result["ansible_facts"]["kafka_instance"] == result["instance_metadata"]


@pytest.mark.parametrize("matrix", ["aws-private-dns-only"], indirect=True)
def test_an_imdsv1_only_node_is_refused_unless_allowed(matrix):
    lab = matrix.lab
    lab.run("fault", "b3", "imds=v1only")
    try:
        refused, _warnings = sm.ansible_module(lab, "b2:b3", "kafkaops.listeners.instance_metadata", "")
        allowed, warnings = sm.ansible_module(lab, "b3", "kafkaops.listeners.instance_metadata",
                                              "allow_imdsv1=true")
    finally:
        lab.run("fault", "b3", "imds=ok")
    assert refused["b2"][0] == "SUCCESS"  # the fault is b3's alone
    status, result = refused["b3"]
    assert status == "FAILED"
    assert result["msg"] == (
        "aws instance metadata refused an IMDSv2 session token (HTTP 403 on PUT /latest/api/token at "
        "http://169.254.169.254: the instance metadata service is turned off for this instance or the token request "
        "is blocked). IMDSv1 (requests without a token) is not tried unless allow_imdsv1=true.")
    status, result = allowed["b3"]
    assert status == "SUCCESS", result
    expected = sm.expected_metadata(matrix.node("b3"), "aws")
    assert {key: result["instance_metadata"][key] for key in expected} == expected
    assert "read IMDSv1 without a token because allow_imdsv1=true" in " ".join(warnings.split()), warnings


@pytest.mark.parametrize("matrix", ["aws-private-dns-only"], indirect=True)
def test_before_the_fix_the_laptop_is_told_which_private_hosts_it_cannot_resolve(matrix):
    bootstrap = matrix.node("laptop")["bootstrap"]
    status, result = sm.kafka_metadata_module(matrix.lab, "laptop", {"bootstrap": [bootstrap],
                                                                    "check_endpoints": True, "timeout": 5})
    kcat, stderr = sm.kcat_brokers(matrix.lab, "laptop", bootstrap)
    private = {matrix.node(host)["kafka_node_id"]: matrix.node(host)["private_dns"] for host in matrix.hosts}
    assert status == "SUCCESS", result
    assert sm.listed(result) == kcat == {node_id: f"{name}:9092" for node_id, name in private.items()}, stderr
    unreachable = {(e["host"], e["resolvable"], e["connectable"]) for e in result["unreachable_endpoints"]}
    assert unreachable == {(name, False, False) for name in private.values()}
    assert all(e["error"] == "Name or service not known" for e in result["unreachable_endpoints"])
    assert result["summary"] == (
        f"bootstrap {bootstrap} reachable, but advertised hosts {', '.join(private.values())} do not resolve from this "
        "host: clients fail after the first connection")


# ------------------------------------------------------------------------------------------------ 2. layout


def test_the_planned_layout_is_written_and_every_broker_restarts_with_it(matrix):
    lab = matrix.lab
    results = matrix.metadata_results()
    metadata = {host: results[host][1]["instance_metadata"] for host in matrix.hosts}  # inventory order
    names = sorted({values["public_dns"] for values in metadata.values() if values["public_dns"]})
    # resolve.yml runs on every host; the plan reads the brokers' results only (controllers serve no clients)
    brokers = [host for host in matrix.hosts if "broker" in sm.inventory_hosts(lab)[host]["kafka_process_roles"]]
    checks = {host: [] for host in matrix.hosts} | sm.external_checks(lab, brokers, names)
    plan = sm.plan_for(lab, sm.planner_facts(lab, metadata, checks))
    assert plan["mode"] == EXPECTED_MODE.get(matrix.scenario, "dual"), plan["reason"]
    if matrix.scenario == "dns-blackhole":
        # the resolvability check is bounded: the dark resolver costs its timeout, not glibc's retries
        assert {result["error"] for results in checks.values() for result in results} == {"timed out after 2.0 s"}
    if matrix.scenario in NO_PUBLIC_ADDRESS_IN_METADATA:
        assert plan["reason"].endswith(f"internal listener only (no public address) on: {', '.join(matrix.hosts)}")

    sm.write_plan(lab, plan)
    if matrix.scenario == "dns-blackhole":
        down = sm.run_parallel([lambda host=host: sm.on_node(lab, host, sm.KAFKA_SERVICE, "restart")
                                for host in matrix.hosts])
        for host, proc in zip(matrix.hosts, down, strict=True):
            assert proc.returncode == 1, (host, proc.stdout, proc.stderr)
            assert "Temporary failure in name resolution" in proc.stderr, (host, proc.stderr)
        lab.run("fault", "vpc-dns", "dns=ok")  # the outage ends long enough to start the brokers
        try:
            sm.restart_kafka(lab, matrix.hosts)
            laptop = sm.first_entry(sm.meant_bootstrap(plan, matrix.node("laptop")))
            everyone = sm.planned_listing(plan, "external")
            assert sm.wait_for_brokers(lab, "laptop", laptop, everyone) == everyone
        finally:
            lab.run("fault", "vpc-dns", "dns=blackhole")
    else:
        sm.restart_kafka(lab, matrix.hosts)

    for node_plan in plan["brokers"]:
        config_node, path = sm.config_location(matrix, node_plan["name"])
        read = sm.on_node(lab, config_node, "cat", path)
        assert read.returncode == 0, read.stderr
        written = parse_properties(read.stdout).to_dict()
        for key, value in node_plan["properties"].items():
            assert written.get(key) == value, (node_plan["name"], key)
        assert sm.on_node(lab, node_plan["name"], sm.KAFKA_SERVICE, "status").returncode == 0, node_plan["name"]

    # the restarted brokers are all listed again (also while the VPC resolver is dark, as in real Kafka)
    client = next(node for node in matrix.clients()
                  if sm.meant_bootstrap(plan, node) and sm.outcome_of_listener(matrix.status, plan, node) == "ok")
    network = sm.MEANT_NETWORK[plan["mode"]][client["client_network"]]
    expected = sm.expected_listing(plan, network)
    bootstrap = sm.first_entry(sm.meant_bootstrap(plan, client))
    assert sm.wait_for_brokers(lab, client["name"], bootstrap, expected) == expected, client["name"]
    matrix.plan = plan


# ------------------------------------------------------------------------------------------------ 3. clients


def test_each_client_produces_and_consumes_on_the_listener_meant_for_its_network(matrix):
    plan = matrix.applied_plan()
    calls, cases = [], []
    for client in matrix.clients():
        bootstrap = sm.meant_bootstrap(plan, client)
        if bootstrap is None:
            # only where the cloud's metadata has no public address does the plan leave a network out
            assert matrix.scenario in NO_PUBLIC_ADDRESS_IN_METADATA and client["client_network"] == "internet"
            continue
        outcome = sm.outcome_of_listener(matrix.status, plan, client)
        if outcome != "ok":  # one server is enough to see the failure, and bounds its cost (dark DNS: ~4 s a name)
            bootstrap = sm.first_entry(bootstrap)
        for library in LIBRARIES:
            topic = f"sm-meant-{client['name']}-{library}"
            cases.append((client["name"], library, bootstrap, outcome, topic))
            calls.append(sm.client_call(matrix.lab, client["name"], library, bootstrap, topic,
                                        ROUND_TRIP_TIMEOUT_S if outcome == "ok" else CLIENT_TIMEOUT_S,
                                        consume=outcome == "ok"))
    assert cases, "no client has a listener meant for it"
    problems = []
    for (node, library, bootstrap, outcome, topic), report in zip(cases, sm.run_parallel(calls), strict=True):
        if outcome == "ok":
            found = sm.round_trip_problems(library, report, topic)
        else:
            endpoints = sm.listener_endpoints(plan, sm.network_of(plan, matrix.node(node)))
            found = sm.failure_problems(library, report, outcome, endpoints)
        problems += [f"{node} {library} {bootstrap} (expected {outcome}): {problem}" for problem in found]
    assert not problems, "\n".join(problems)


def test_each_client_fails_on_a_listener_meant_for_another_network_with_that_networks_error(matrix):
    plan = matrix.applied_plan()
    calls, cases = [], []
    for client in matrix.clients():
        wrong = sm.wrong_listener(matrix.status, plan, client)
        if wrong is None:
            # one listener for every network (split horizon), or OCI's VPC client with only INTERNAL planned
            assert plan["mode"] == "single" or matrix.scenario in NO_PUBLIC_ADDRESS_IN_METADATA, client["name"]
            continue
        network, bootstrap = wrong
        endpoints = sm.listener_endpoints(plan, network)
        outcomes = {sm.expected_outcome(matrix.status, client, host, port) for host, port in endpoints}
        assert len(outcomes) == 1, (client["name"], endpoints, outcomes)
        outcome = outcomes.pop()
        for library in LIBRARIES:
            topic = f"sm-wrong-{client['name']}-{library}"
            cases.append((client["name"], library, bootstrap, outcome, endpoints, topic))
            calls.append(sm.client_call(matrix.lab, client["name"], library, bootstrap, topic,
                                        ROUND_TRIP_TIMEOUT_S if outcome == "ok" else CLIENT_TIMEOUT_S,
                                        consume=outcome == "ok"))
    if plan["mode"] != "single":
        assert cases, "no client has a listener not meant for it"
    problems = []
    for (node, library, bootstrap, outcome, endpoints, topic), report in zip(cases, sm.run_parallel(calls),
                                                                             strict=True):
        if outcome == "ok":  # public IPs from inside the VPC: the router's hairpin NAT makes them work
            found = sm.round_trip_problems(library, report, topic)
        else:
            found = sm.failure_problems(library, report, outcome, endpoints)
        problems += [f"{node} {library} {bootstrap} (expected {outcome}): {problem}" for problem in found]
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------------------------ 4. kafka_metadata


def test_kafka_metadata_lists_what_kcat_lists_and_names_the_unusable_endpoints(matrix):
    plan = matrix.applied_plan()
    cases = []
    for client in matrix.clients():
        meant = sm.meant_bootstrap(plan, client)
        if meant is not None:
            cases.append((client, sm.network_of(plan, client), sm.first_entry(meant)))
        wrong = sm.wrong_listener(matrix.status, plan, client)
        if wrong is not None:
            cases.append((client, *wrong))
    calls = []
    for client, _network, bootstrap in cases:
        calls.append(lambda node=client["name"], server=bootstrap: sm.kafka_metadata(matrix.lab, node, server))
        calls.append(lambda node=client["name"], server=bootstrap: sm.kcat_brokers(matrix.lab, node, server))
    answers = sm.run_parallel(calls)
    problems = []
    for index, (client, network, bootstrap) in enumerate(cases):
        result, (kcat, kcat_stderr) = answers[2 * index], answers[2 * index + 1]
        where = f"{client['name']} via {bootstrap} ({network})"
        host, port = parse_hostport(bootstrap)
        if sm.expected_outcome(matrix.status, client, host, port) != "ok":
            # only the dark VPC resolver stops a bootstrap server the plan handed out
            assert matrix.scenario == "dns-blackhole", where
            if not (result["failed"] and f"{host} does not resolve from this host" in result["msg"]):
                problems.append(f"{where}: kafka_metadata should fail to resolve {host}: {result}")
            if kcat is not None or f"Failed to resolve '{bootstrap}'" not in kcat_stderr:
                problems.append(f"{where}: kcat -L should fail to resolve {bootstrap}: {kcat} {kcat_stderr}")
            continue
        if result["failed"]:
            problems.append(f"{where}: kafka_metadata failed: {result['msg']}")
            continue
        expected = sm.expected_listing(plan, network)
        if not sm.listed(result) == kcat == expected:
            problems.append(f"{where}: module {sm.listed(result)}, kcat {kcat}, plan {expected}")
        should_fail = {}
        for endpoint_host, endpoint_port in sm.listener_endpoints(plan, network):
            outcome = sm.expected_outcome(matrix.status, client, endpoint_host, endpoint_port)
            if outcome != "ok" and f"{endpoint_host}:{endpoint_port}" in expected.values():
                should_fail[(endpoint_host, endpoint_port)] = outcome
        reported = {(e["host"], e["port"]): e for e in result["unreachable_endpoints"]}
        if set(reported) != set(should_fail):
            problems.append(f"{where}: unreachable_endpoints {sorted(reported)}, expected {sorted(should_fail)}")
            continue
        for key, outcome in should_fail.items():
            problems += [f"{where}: {problem}" for problem in sm.endpoint_problems(reported[key], outcome)]
    assert not problems, "\n".join(problems)

