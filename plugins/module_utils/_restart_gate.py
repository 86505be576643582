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

Private to kafkaops.listeners. Standard library only (modules run on managed nodes).
"""

from __future__ import annotations

from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_protocol import ERROR_NONE, error_name

MIN_INSYNC = "min.insync.replicas"
#: how many partitions a reason names before it says how many more there are
SHOWN = 8


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


def restart_check(answer, node_id, stage, node_name=None, assume_min_insync=None):
    """kafka_metadata's RV(restart_check) from ``fetch_metadata``'s answer (asked with the min.insync.replicas key
    when ``stage`` is ``before_restart``): {"ready", "reason", "blocking", "unavoidable", "registered", "lagging"}."""
    node = node_name or "broker %d" % node_id
    metadata = answer["metadata"]
    check = {"stage": stage, "node_id": node_id, "ready": False, "reason": None, "blocking": [], "unavoidable": [],
             "registered": any(broker["node_id"] == node_id for broker in metadata["brokers"]), "lagging": []}
    if stage == "after_restart":
        check["registered"], check["lagging"] = after_restart(metadata, node_id)
        check["ready"] = check["registered"] and not check["lagging"]
        if not check["ready"]:
            check["reason"] = after_restart_reason(node, check["registered"], check["lagging"],
                                                   answer["bootstrap_used"])
        return check
    if "topic_configs_error" in answer and assume_min_insync is None:
        check["reason"] = (
            "cannot tell whether restarting %s keeps every partition at min.insync.replicas: the cluster did not "
            "answer the topics' min.insync.replicas (%s). Give the client the right to describe topic "
            "configurations (DescribeConfigs), or set the minimum to assume for every topic (the broker role's "
            "broker_restart_assume_min_insync_replicas); %s was not restarted."
            % (node, answer["topic_configs_error"], node))
        return check
    try:
        min_insync = min_insync_by_topic(answer.get("topic_configs", {}), assume_min_insync)
    except ValueError as exc:
        check["reason"] = "cannot tell whether restarting %s is safe: %s; %s was not restarted." % (node, exc, node)
        return check
    if "topic_configs_error" in answer:
        min_insync = {topic["name"]: assume_min_insync for topic in metadata["topics"]}
    check["blocking"], check["unavoidable"] = before_restart(metadata, min_insync, node_id)
    check["ready"] = not check["blocking"]
    if check["blocking"]:
        check["reason"] = before_restart_reason(node, check["blocking"])
    return check
