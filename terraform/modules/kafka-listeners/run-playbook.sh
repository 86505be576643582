#!/usr/bin/env bash
# The kafka-listeners Terraform hook (local-exec runs `bash run-playbook.sh` with the KL_* environment of main.tf):
# check the inputs, wait until SSH answers on every broker (bounded), write the inventory, run ansible-playbook.
# Secrets arrive only in KL_SECRET_EXTRA_VARS; they go to a mode-0600 file in a private temporary folder and are
# never printed. Runs on bash 3.2 (macOS) too: no mapfile, no empty-array expansions under `set -u`.
set -euo pipefail

say() { printf 'kafka-listeners: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${KL_PYTHON:-python3}
command -v "$python" >/dev/null 2>&1 || die "KL_PYTHON (variable python): '$python' is not an executable Python"
ansible_playbook=${KL_ANSIBLE_PLAYBOOK:-ansible-playbook}
command -v "$ansible_playbook" >/dev/null 2>&1 \
  || die "KL_ANSIBLE_PLAYBOOK (variable ansible_playbook_path): '$ansible_playbook' is not an executable command"

umask 077
workdir=$(mktemp -d "${TMPDIR:-/tmp}/kafka-listeners.XXXXXX")
trap 'rm -rf "$workdir"' EXIT

# exit status 2 with a message naming the variable on bad input
"$python" "$here/hook.py" prepare "$workdir" || exit $?
# the secrets are in secret-vars.json now; nothing started from here on needs them in its environment
unset KL_SECRET_EXTRA_VARS

# NUL-separated argument lists written by hook.py (arguments may hold spaces, e.g. a ProxyCommand)
ssh_probe_args=()
while IFS= read -r -d '' arg; do ssh_probe_args+=("$arg"); done < "$workdir/ssh-probe-args"
playbook_args=()
while IFS= read -r -d '' arg; do playbook_args+=("$arg"); done < "$workdir/playbook-args"

attempts=$KL_SSH_WAIT_ATTEMPTS
delay=$KL_SSH_WAIT_DELAY
connect_timeout=$KL_SSH_CONNECT_TIMEOUT
# ConnectTimeout also bounds the SSH handshake; `timeout` (where installed) is a hard stop for a hung ProxyCommand
hard_stop=()
if command -v timeout >/dev/null 2>&1; then
  hard_stop=(timeout "$((connect_timeout + 10))")
fi

wait_for_ssh() {  # NAME ADDRESS: return once `ssh ... true` works, or stop the run after $attempts tries
  local name=$1 address=$2 attempt output status last_error=""
  for ((attempt = 1; attempt <= attempts; attempt++)); do
    status=0
    output=$(${hard_stop[@]+"${hard_stop[@]}"} ssh "${ssh_probe_args[@]}" "$address" true 2>&1 </dev/null) || status=$?
    if ((status == 0)); then
      say "SSH to $name ($address) answers (attempt $attempt of $attempts)"
      return 0
    fi
    if ((status == 124)); then
      output="no answer within $((connect_timeout + 10)) s"
    fi
    last_error=$(printf '%s' "$output" | tail -n 1)
    if ((attempt < attempts)); then
      sleep "$delay"
    fi
  done
  die "SSH to broker $name ($KL_SSH_USER@$address port $KL_SSH_PORT) never came up: $attempts attempts, ${delay} s apart, each with a ${connect_timeout} s connect timeout; last error: ${last_error:-none}"
}

count=0
while IFS=$'\t' read -r name address; do
  wait_for_ssh "$name" "$address" </dev/null
  count=$((count + 1))
done < "$workdir/hosts.tsv"

say "running $ansible_playbook ${KL_PLAYBOOK} for cluster ${KL_CLUSTER_NAME} on $count brokers"
"$ansible_playbook" "${playbook_args[@]}"
