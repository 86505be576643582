"""The `lab` command line. Exit codes: 0 done, 1 the operation failed, 2 bad usage or input, 3 no such lab."""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import lab, scenario, state, topology
from .netns import LabError, LabUsageError

USAGE_EXAMPLES = """examples:
  lab up --scenario aws-private-dns-only          # prints the new lab's prefix
  lab status --json
  lab kcat laptop -- -L -b ec2-198-19-0-11.us-west-2.compute.amazonaws.com:9092
  lab exec b1 -- cat /etc/kafka/server.properties
  lab seeded                    # real Kafka: the seeded topic read back, its ISR listed
  lab restart-instance b2
  lab fault b1 imds=down        # imds=down|slow|token_refused|garbage|v1only|ok; vpc-dns: dns=blackhole|ok
  lab down
Without --prefix a command uses $KAFKAOPS_LAB_PREFIX, else the only running lab.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lab", description="A virtual cloud on one machine for the kafkaops lab.",
                                     epilog=USAGE_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    def with_prefix(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--prefix", help="the lab to act on (default: $KAFKAOPS_LAB_PREFIX or the only lab)")
        return p

    p = sub.add_parser("up", help="bring a lab up (every broker started as a fresh install)")
    p.add_argument("--scenario", required=True, help=f"one of: {', '.join(scenario.available())}")
    p.add_argument("--brokers", type=int, help="number of brokers (default: the scenario's)")
    p.add_argument("--prefix", help="name prefix of the lab (default: kl + 4 hex digits)")
    p.add_argument("--kafka", help="the broker: standin (default), real (the first of lab/kafka-dist/versions) "
                   "or real:VERSION; default: $KAFKAOPS_LAB_KAFKA, else the scenario's `kafka` key")
    p.add_argument("--kafka-home", help="run this Apache Kafka (a directory with libs/*.jar) instead of the stand-in")
    p.add_argument("--keep-on-failure", action="store_true", help="leave a failed lab for inspection")
    p.add_argument("--empty", action="store_true", help="real Kafka without the seeded replicated topic (lab-seeded) "
                   "that every real-Kafka lab of 2 or more brokers otherwise carries")
    p.add_argument("--json", action="store_true", help="print the status JSON instead of a summary")
    with_prefix(sub.add_parser("down", help="remove the lab and everything it created"))
    p = with_prefix(sub.add_parser("status", help="show nodes, addresses, names"))
    p.add_argument("--json", action="store_true")
    with_prefix(sub.add_parser("exec", help="run a command on a node: lab exec NODE -- CMD...")).add_argument("node")
    with_prefix(sub.add_parser("kcat", help="run kcat on a node: lab kcat NODE -- ARGS...")).add_argument("node")
    with_prefix(sub.add_parser("inventory", help="print the path of the Ansible inventory"))
    with_prefix(sub.add_parser("seeded", help="read the seeded topic back and list its ISR; exit 1 if anything "
                                              "is missing, duplicated or out of sync"))
    p = with_prefix(sub.add_parser("restart-instance", help="cloud stop/start: new public IP and DNS name"))
    p.add_argument("node")
    p = with_prefix(sub.add_parser("fault", help="inject a fault: imds=down|slow|token_refused|garbage|v1only|ok, "
                                                 "dns=blackhole|ok"))
    p.add_argument("node")
    p.add_argument("spec", help="KIND=VALUE")
    return parser


def _print_summary(status: dict) -> None:
    print(f"lab {status['prefix']} ({status['scenario']}): {status['status']}")
    print(f"{'node':<10} {'role':<12} {'private':<15} {'public':<15} names")
    for node in status["nodes"]:
        names = " ".join(filter(None, [node.get("private_dns"), node.get("public_dns")]))
        print(f"{node['name']:<10} {node['role']:<12} {node['private_ip'] or '-':<15} {node['public_ip'] or '-':<15} "
              f"{names}")
        if node.get("bootstrap_servers"):
            print(f"{'':<10} bootstrap ({node['client_network']}): {node['bootstrap_servers']}")
    print(f"inventory: {status['inventory']}")
    print(f"ssh: ssh -F {status['ssh_config']} <node>")


def _fail(exc: Exception, code: int) -> int:
    """Print the error (messages about one lab already start with "lab <prefix>:") and return `code`."""
    message = str(exc)
    print(message if message.startswith("lab ") else f"lab: {message}", file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    if "--" in argv:  # everything after -- belongs to the command run on the node
        split = argv.index("--")
        argv, command = argv[:split], argv[split + 1:]
    args = _parser().parse_args(argv)
    if command and args.command not in ("exec", "kcat"):
        print(f"lab {args.command}: unexpected arguments after --: {' '.join(command)}", file=sys.stderr)
        return 2
    try:
        if args.command == "up":
            result = lab.up(args.scenario, args.brokers, args.prefix, args.kafka_home, args.keep_on_failure,
                            progress=lambda message: print(message, file=sys.stderr, flush=True), kafka=args.kafka,
                            empty=args.empty)
            if args.json:
                print(json.dumps(result, indent=1))
            else:
                _print_summary(result)
                print(f"export {state.PREFIX_ENV}={result['prefix']}")
        elif args.command == "down":
            removed = lab.down(args.prefix)
            print("removed: " + (", ".join(removed) if removed else "nothing (no such lab)"))
        elif args.command == "status":
            result = lab.status(args.prefix)
            print(json.dumps(result, indent=1)) if args.json else _print_summary(result)
        elif args.command in ("exec", "kcat"):
            full = (["kcat"] + command) if args.command == "kcat" else command
            node_argv = lab.node_argv(args.prefix, args.node, full)
            sys.stdout.flush()
            os.execvp(node_argv[0], node_argv)
        elif args.command == "inventory":
            lab_dir, _saved, _topo = lab.load(args.prefix)
            print(lab_dir.inventory)
        elif args.command == "seeded":
            result = lab.check_seeded(args.prefix)
            print(json.dumps(result, indent=1))
            return 1 if result["problems"] else 0
        elif args.command == "restart-instance":
            print(json.dumps(lab.restart_instance(args.prefix, args.node), indent=1))
        elif args.command == "fault":
            print(lab.fault(args.prefix, args.node, args.spec))
    except state.LabNotFound as exc:
        return _fail(exc, 3)
    except (scenario.ScenarioError, topology.TopologyError, LabUsageError) as exc:
        return _fail(exc, 2)
    except LabError as exc:
        return _fail(exc, 1)
    except KeyboardInterrupt:
        print("lab: interrupted", file=sys.stderr)
        return 130
    return 0
