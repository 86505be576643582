"""The stand-in held to real Apache Kafka 3.9.2 (KRaft), as test_real_kafka_lab.py holds it to the default release.

One scenario, kraft-separate-controllers, chosen as the most telling for 3.9: controllers are where 3.9 and 4.x
differ (3.9.0 derived the advertised controller endpoint from `listeners`; a 3.9 broker learns its peers from
dedicated voters over the controller listener), and the laptop there still cannot resolve the brokers' private
names. The AWS layout on 3.9.2 runs in ZooKeeper mode in test_zookeeper_lab.py; Docker's single combined container
adds nothing 4.4.0 does not already show. About 3 minutes, so it runs as its own file beside the 4.4.0 one.

In file order: every client node of both labs sees the same brokers, endpoints, deliveries and errors through the
stand-in as through Kafka 3.9.2; the laptop fails with `Failed to resolve` / `Local: Host resolution failure` on
3.9.2; after the site playbook the laptop round-trips with kcat, confluent-kafka and kafka-python on both.
"""

from __future__ import annotations

import pytest
import real_kafka_pairs as pairs

pytestmark = pytest.mark.lab

SCENARIO = "kraft-separate-controllers"
RELEASE = "3.9.2"


@pytest.fixture(scope="module")
def pair(lab_kcat_required):
    """kraft-separate-controllers on the stand-in and on Kafka 3.9.2, brought up in parallel, always torn down."""
    yield from pairs.both_kinds(SCENARIO, f"real:{RELEASE}")


def test_before_the_fix_every_client_sees_the_same_through_the_standin_as_through_kafka_3_9(pair):
    assert pair.labs["real"].status["kafka"] == f"real:{RELEASE}"
    pairs.assert_same_views_before_the_fix(pair)


def test_on_kafka_3_9_the_laptop_cannot_resolve_the_brokers_private_names(pair):
    pairs.assert_laptop_fails_to_resolve(pair.labs["real"])


def test_after_the_site_playbook_the_laptop_round_trips_on_kafka_3_9_as_on_the_standin(pair, tmp_path):
    pairs.assert_laptop_round_trips_after_the_site_playbook(pair, tmp_path, SCENARIO)
