"""The lab: a virtual cloud on one machine (network namespaces, DNS per network, SSH-reachable nodes).

The `lab/lab` command drives it; each module holds one concept:
`cloud` (how each provider names and describes an instance), `scenario` (the declarative scenario files),
`topology` (nodes, addresses, names of one lab), `kafka_config` (fresh-install broker configs, Docker env),
`state` (the per-lab state directory), `netns` (namespaces, links, NAT), `dns` (resolvers and resolv.conf),
`nodes` (per-node mount/UTS holders, sshd, metadata emulator, broker service), `inventory` (Ansible inventory),
`lab` (up/down/restart-instance/fault), `cli` (the command line).
"""
