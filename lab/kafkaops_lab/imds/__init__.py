"""The lab's instance-metadata emulator, one module per provider (as plugins/module_utils/_metadata is).

`inputs` (the values and control files), `answers` (requests, responses, fault "garbage" bodies), `documents`
(path trees and JSON walks the providers share), and one module per cloud holding its documents and its
`handle_<provider>`: `aws`, `gcp`, `azure`, `openstack`, `digitalocean`, `oci`, `hetzner`. The HTTP server, the
dispatch to the providers and the command line are in ../imds_emulator.py, the script the lab starts.
Only the Python standard library is used: the lab runs it inside namespaces with whatever python3 is there.
"""
