# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Whether one broker may be restarted now, and whether it is back after its restart, from the cluster's own answer.

Before a restart: every partition the broker holds in sync must keep at least its topic's ``min.insync.replicas``
in-sync replicas without it, or every ``acks=all`` producer of that partition stops until the broker is back
(Strimzi's rolling restarts refuse the same). A partition whose replication factor is at most its
min.insync.replicas cannot keep it through any restart; it is reported, not waited for. After a restart: the broker
is registered again and back in the in-sync replicas of every partition it hosts (a partition error such as
LISTENER_NOT_FOUND on the listener asked is named in the reason).

A node that is a voter of the KRaft controller quorum (a controller, alone or beside a broker) has a gate of its own,
from DescribeQuorum's answer, as Strimzi's KafkaQuorumCheck has it: before its restart, the voters other than it that
are caught up with the leader must still be a majority of all voters, or the quorum stops committing metadata (no
leader elections, no ISR changes, no broker registrations) until enough are back. After its restart, it is caught
up again. A voter is caught up when the leader's last caught-up time minus its own is within
``controller.quorum.fetch.timeout.ms`` (2000 ms by default); DescribeQuorum v0, which has no times, counts the
records between its log end offset and the leader's instead.

Private to kafkaops.listeners. Standard library only (modules run on managed nodes).
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import ERROR_NONE, error_name

MIN_INSYNC = "min.insync.replicas"
#: how many partitions a reason names before it says how many more there are
SHOWN = 8
#: controller.quorum.fetch.timeout.ms's default: a follower further behind the leader than this is not caught up
QUORUM_MAX_LAG_MS = 2000
#: DescribeQuorum v0 (Kafka before 3.3) has no times: a follower this many records behind the leader's log end is
#: not caught up (the active controller appends a no-op record every 500 ms, metadata.max.idle.interval.ms)
QUORUM_MAX_LAG_RECORDS = 20
#: the checks restart_check can make
CHECKS = ("partitions", "quorum")


def _hosted(metadata, node_id):
    """(topic name, partition) for every partition whose replicas include ``node_id``, sorted."""
    for topic in sorted(metadata["topics"], key=lambda t: t["name"] or ""):
        for partition in sorted(topic["partitions"], key=lambda p: p["partition"]):
            if node_id in partition["replicas"]:
                yield topic["name"], partition


def min_insync_by_topic(topic_configs, assumed=None):
    """{topic: int} from DescribeConfigs' answer; ValueError naming the topic when a value is not a number."""
    result = {}
    for topic, configs in topic_configs.items():
        value = configs.get(MIN_INSYNC)
        if value is None:
            if assumed is None:
                raise ValueError("the cluster did not tell %s of topic %s" % (MIN_INSYNC, topic))
            result[topic] = assumed
            continue
        try:
            result[topic] = int(value)
        except ValueError:
            raise ValueError("the cluster answered %s=%r for topic %s, not a number"
                             % (MIN_INSYNC, value, topic)) from None
    return result


def _entry(topic, partition, **extra):
    entry = {"topic": topic, "partition": partition["partition"], "leader": partition["leader"],
             "replicas": list(partition["replicas"]), "isr": list(partition["isr"]),
             "error": None if partition["error_code"] == ERROR_NONE else error_name(partition["error_code"])}
    entry.update(extra)
    return entry


def before_restart(metadata, min_insync, node_id):
    """What stops ``node_id`` from being restarted now: (blocking, unavoidable), lists of partition entries.

    ``min_insync`` is {topic: min.insync.replicas}. Blocking: the broker is in the partition's ISR and the ISR
    without it would be smaller than min.insync.replicas (including a partition already below it). Unavoidable:
    the replication factor is at most min.insync.replicas, so any restart of any replica stops its acks=all
    producers; waiting cannot help, so these do not block.
    """
    blocking, unavoidable = [], []
    for topic, partition in _hosted(metadata, node_id):
        if node_id not in partition["isr"] or topic not in min_insync:
            continue
        needed = min_insync[topic]
        if len(partition["isr"]) - 1 >= needed:
            continue
        entry = _entry(topic, partition, min_insync_replicas=needed)
        (unavoidable if len(partition["replicas"]) <= needed else blocking).append(entry)
    return blocking, unavoidable


def after_restart(metadata, node_id):
    """What keeps ``node_id`` from counting as back: (registered, lagging), lagging being the partitions it hosts
    whose ISR lacks it (with the error each carries on the listener asked). An error alone does not count: during a
    rollout that adds a listener, the brokers not restarted yet have no endpoint on it (LISTENER_NOT_FOUND) while
    every replica is in sync; when the brokers cannot replicate, the restarted one leaves the ISR."""
    registered = any(broker["node_id"] == node_id for broker in metadata["brokers"])
    lagging = [_entry(topic, partition) for topic, partition in _hosted(metadata, node_id)
               if node_id not in partition["isr"]]
    return registered, lagging


def preferred_elsewhere(metadata, node_id):
    """[(topic, [partition, ...])], sorted: the partitions whose preferred replica (the first of their replicas) is
    ``node_id``, that another broker leads and whose ISR holds ``node_id``: the leadership its restart moved away
    (Kafka's controlled shutdown hands it to another replica), which a preferred-leader election gives back."""
    found = {}
    for topic, partition in _hosted(metadata, node_id):
        if (partition["replicas"][:1] == [node_id] and partition["leader"] != node_id
                and node_id in partition["isr"] and partition["error_code"] == ERROR_NONE):
            found.setdefault(topic, []).append(partition["partition"])
    return sorted(found.items())


def describe(entries):
    """``orders-3 (ISR [1, 2] of replicas [1, 2, 3], min.insync.replicas 2, LISTENER_NOT_FOUND)``, bounded."""
    shown = []
    for entry in entries[:SHOWN]:
        facts = ["ISR %s of replicas %s" % (entry["isr"], entry["replicas"])]
        if "min_insync_replicas" in entry:
            facts.append("%s %d" % (MIN_INSYNC, entry["min_insync_replicas"]))
        if entry["error"]:
            facts.append(entry["error"])
        shown.append("%s-%d (%s)" % (entry["topic"], entry["partition"], ", ".join(facts)))
    if len(entries) > SHOWN:
        shown.append("and %d more" % (len(entries) - SHOWN))
    return "; ".join(shown)


def before_restart_reason(node, blocking):
    return (
        "restarting %s now would take %d partition(s) below min.insync.replicas, and every acks=all producer of "
        "them would stop until it is back: %s. Bring the missing replicas back in sync first (a broker that is "
        "down or still catching up), then run again; %s was not restarted."
        % (node, len(blocking), describe(blocking), node))


def after_restart_reason(node, registered, lagging, asked):
    if not registered:
        return ("%s is not registered in the cluster (asked %s): Kafka did not start, or started without reaching "
                "its controllers; see its service log (journalctl -u <service>) and server.log." % (node, asked))
    listener_errors = sorted({entry["error"] for entry in lagging if entry["error"]})
    text = ("%s is registered but not back in sync for %d partition(s) it hosts (asked %s): %s."
            % (node, len(lagging), asked, describe(lagging)))
    if "LISTENER_NOT_FOUND" in listener_errors:
        text += (" LISTENER_NOT_FOUND: the leaders of these partitions have no endpoint on the listener asked, so "
                 "the brokers do not share the inter-broker listener %s uses: a rename of the inter-broker listener "
                 "must first add the new listener on every broker (see the guide for clusters in service)." % node)
    return text


# ----------------------------------------------------------------------------------------------- the controller quorum


def quorum_lags(quorum, max_lag_ms=QUORUM_MAX_LAG_MS):
    """Every voter and observer of ``request_quorum``'s answer: [{"node_id", "voter", "leader", "caught_up",
    "lag_ms", "lag_records"}], voters first. ``lag_ms`` is None when a time is unknown (-1: the voter never fetched
    from this leader, or DescribeQuorum v0); without a leader nobody is caught up."""
    replicas = [(replica, True) for replica in quorum["voters"]] + [(replica, False) for replica in quorum["observers"]]
    leader = next((replica for replica, voter in replicas if voter and replica["replica_id"] == quorum["leader_id"]),
                  None)
    lags = []
    for replica, voter in replicas:
        entry = {"node_id": replica["replica_id"], "voter": voter, "leader": replica is leader, "caught_up": False,
                 "lag_ms": None, "lag_records": None}
        if leader is not None:
            if replica["log_end_offset"] >= 0 and leader["log_end_offset"] >= 0:
                entry["lag_records"] = max(0, leader["log_end_offset"] - replica["log_end_offset"])
            timed = leader["last_caught_up_timestamp"] >= 0
            if timed and replica["last_caught_up_timestamp"] >= 0:
                entry["lag_ms"] = max(0, leader["last_caught_up_timestamp"] - replica["last_caught_up_timestamp"])
            if replica is leader:
                entry["caught_up"], entry["lag_ms"], entry["lag_records"] = True, 0, 0
            elif timed:
                entry["caught_up"] = entry["lag_ms"] is not None and entry["lag_ms"] <= max_lag_ms
                if entry["lag_ms"] is None:
                    entry["lag_records"] = None  # a voter that never fetched from this leader: no lag to tell
            else:
                entry["caught_up"] = entry["lag_records"] is not None and entry["lag_records"] <= QUORUM_MAX_LAG_RECORDS
        lags.append(entry)
    return lags


def describe_voters(lags, leader):
    """``node 3 (34.5 s behind leader 1)`` for each entry, bounded; ``leader`` is the leader's id (-1: none)."""
    leader = None if leader == -1 else leader
    shown = []
    for entry in lags[:SHOWN]:
        if entry["leader"]:
            facts = "the leader"
        elif leader is None:
            facts = "no leader to be caught up with"
        elif entry["lag_ms"] is not None:
            facts = "%.1f s behind leader %d" % (entry["lag_ms"] / 1000.0, leader)
        elif entry["lag_records"] is not None:
            facts = "%d records behind leader %d" % (entry["lag_records"], leader)
        else:
            facts = "no fetch from leader %d known: down since before it led, or never started" % leader
        shown.append("node %d (%s)" % (entry["node_id"], facts))
    if len(lags) > SHOWN:
        shown.append("and %d more" % (len(lags) - SHOWN))
    return "; ".join(shown)


def quorum_before_restart(quorum, node_id, max_lag_ms=QUORUM_MAX_LAG_MS):
    """{"voter", "leader_id", "voters": quorum_lags' voters, "majority", "caught_up_without"}: whether ``node_id`` is a
    voter, how many voters make a majority, and how many voters other than it are caught up."""
    voters = [entry for entry in quorum_lags(quorum, max_lag_ms) if entry["voter"]]
    return {"voter": any(entry["node_id"] == node_id for entry in voters), "leader_id": quorum["leader_id"],
            "voters": voters, "majority": len(voters) // 2 + 1,
            "caught_up_without": sum(1 for entry in voters if entry["caught_up"] and entry["node_id"] != node_id)}


def quorum_before_restart_reason(node, state):
    behind = [entry for entry in state["voters"] if not entry["caught_up"]]
    return (
        "restarting %s now would leave the controller quorum without a majority of caught-up voters, and the "
        "cluster's metadata (leader elections, in-sync replicas, broker registrations) would stop until enough are "
        "back: %d of its %d voters must be caught up, and without %s %d %s caught up. Not caught up: %s. Bring "
        "those controllers back (a controller that is down or still catching up: its service log says why), then "
        "run again; %s was not restarted."
        % (node, state["majority"], len(state["voters"]), node, state["caught_up_without"],
           "is" if state["caught_up_without"] == 1 else "are",
           describe_voters(behind, state["leader_id"]) or "none", node))


def quorum_after_restart(quorum, node_id, max_lag_ms=QUORUM_MAX_LAG_MS):
    """(entry, lags): ``node_id``'s quorum_lags entry (None when the quorum lists it neither as voter nor observer)."""
    lags = quorum_lags(quorum, max_lag_ms)
    return next((entry for entry in lags if entry["node_id"] == node_id), None), lags


def quorum_after_restart_reason(node, entry, lags, asked, leader):
    if entry is None:
        return ("%s is neither a voter nor an observer of the controller quorum (asked %s; voters: %s): it did not "
                "start, or started without reaching the other controllers; see its service log (journalctl -u "
                "<service>) and server.log." % (node, asked, describe_voters([e for e in lags if e["voter"]], leader)))
    return ("%s is not caught up with the controller quorum (asked %s): %s. It is still catching up, or cannot reach "
            "the leader on the controller listener; see its service log (journalctl -u <service>) and server.log."
            % (node, asked, describe_voters([entry], leader)))


def _quorum_refused_reason(node, error, stage):
    return (
        "cannot tell whether %s %s: the cluster did not describe its controller quorum (%s). Give the client the "
        "right to describe the cluster (DescribeQuorum needs DESCRIBE on the cluster resource), or turn the quorum "
        "gate off (the broker role's broker_restart_quorum_gate: false); %s"
        % (node, "may be restarted without losing the quorum's majority" if stage == "before_restart"
           else "is caught up in the controller quorum", error,
           "%s was not restarted." % node if stage == "before_restart" else "it was restarted."))


def _check_quorum(check, answer, node, node_id, stage, max_lag_ms):
    """The quorum part of restart_check: sets check["voter"], check["quorum"], and "ready"/"reason" when it says no."""
    if "quorum" not in answer:
        check["ready"] = False
        check["reason"] = _quorum_refused_reason(node, answer.get("quorum_error", "not asked"), stage)
        return
    quorum = answer["quorum"]
    if stage == "before_restart":
        state = quorum_before_restart(quorum, node_id, max_lag_ms)
        check["voter"] = state["voter"]
        check["quorum"] = {"leader_id": state["leader_id"], "majority": state["majority"],
                           "caught_up_without": state["caught_up_without"], "voters": state["voters"]}
        # a single voter cannot keep a majority through any restart: waiting cannot help (as Strimzi, it may restart)
        if state["voter"] and len(state["voters"]) > 1 and state["caught_up_without"] < state["majority"]:
            check["ready"] = False
            check["reason"] = quorum_before_restart_reason(node, state)
        return
    entry, lags = quorum_after_restart(quorum, node_id, max_lag_ms)
    check["voter"] = entry is not None and entry["voter"]
    check["quorum"] = {"leader_id": quorum["leader_id"], "majority": None, "caught_up_without": None,
                       "voters": [e for e in lags if e["voter"]]}
    if entry is None or not entry["caught_up"]:
        check["ready"] = False
        check["reason"] = quorum_after_restart_reason(node, entry, lags, answer["bootstrap_used"],
                                                      quorum["leader_id"])


def restart_check(answer, node_id, stage, node_name=None, assume_min_insync=None, checks=("partitions",),
                  quorum_max_lag_ms=QUORUM_MAX_LAG_MS):
    """kafka_metadata's RV(restart_check) from ``fetch_metadata``'s answer (asked with the min.insync.replicas key
    when ``stage`` is ``before_restart`` and the partitions are checked, and DescribeQuorum when the quorum is):
    {"ready", "reason", "blocking", "unavoidable", "registered", "lagging", "voter", "quorum"}. ``checks`` holds
    "partitions" (the broker's partitions), "quorum" (the controller quorum) or both; the first that says no gives
    the reason."""
    node = node_name or "broker %d" % node_id
    check = {"stage": stage, "node_id": node_id, "ready": True, "reason": None, "blocking": [], "unavoidable": [],
             "registered": any(broker["node_id"] == node_id for broker in answer["metadata"]["brokers"]),
             "lagging": [], "voter": None, "quorum": None}
    if "partitions" in checks:
        _check_partitions(check, answer, node, node_id, stage, assume_min_insync)
    if "quorum" in checks:
        quorum_check = dict(check, ready=True, reason=None)
        _check_quorum(quorum_check, answer, node, node_id, stage, quorum_max_lag_ms)
        check.update(voter=quorum_check["voter"], quorum=quorum_check["quorum"])
        if check["ready"] and not quorum_check["ready"]:
            check.update(ready=False, reason=quorum_check["reason"])
    return check


def _check_partitions(check, answer, node, node_id, stage, assume_min_insync):
    """The partition part of restart_check: sets its fields, and "ready"/"reason" when it says no."""
    check["ready"] = False
    metadata = answer["metadata"]
    if stage == "after_restart":
        check["registered"], check["lagging"] = after_restart(metadata, node_id)
        check["ready"] = check["registered"] and not check["lagging"]
        if not check["ready"]:
            check["reason"] = after_restart_reason(node, check["registered"], check["lagging"],
                                                   answer["bootstrap_used"])
        return
    if "topic_configs_error" in answer and assume_min_insync is None:
        check["reason"] = (
            "cannot tell whether restarting %s keeps every partition at min.insync.replicas: the cluster did not "
            "answer the topics' min.insync.replicas (%s). Give the client the right to describe topic "
            "configurations (DescribeConfigs), or set the minimum to assume for every topic (the broker role's "
            "broker_restart_assume_min_insync_replicas); %s was not restarted."
            % (node, answer["topic_configs_error"], node))
        return
    try:
        min_insync = min_insync_by_topic(answer.get("topic_configs", {}), assume_min_insync)
    except ValueError as exc:
        check["reason"] = "cannot tell whether restarting %s is safe: %s; %s was not restarted." % (node, exc, node)
        return
    if "topic_configs_error" in answer:
        min_insync = {topic["name"]: assume_min_insync for topic in metadata["topics"]}
    check["blocking"], check["unavoidable"] = before_restart(metadata, min_insync, node_id)
    check["ready"] = not check["blocking"]
    if check["blocking"]:
        check["reason"] = before_restart_reason(node, check["blocking"])
