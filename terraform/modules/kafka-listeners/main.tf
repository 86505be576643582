# Runs the collection's playbook against the brokers once they exist, and again whenever an instance is replaced
# or its public address changes (a stop/start gives an AWS instance a new public IP and DNS name, which the brokers
# must then advertise).

locals {
  # Terraform hides all output of a provisioner whose configuration holds a sensitive value, so the secret map is
  # only passed (and the playbook's output only hidden) when there is a secret to pass. Not a conditional: newer
  # Terraform marks a conditional's result sensitive when either branch is, even when it picks the empty one. A for
  # expression over an empty list evaluates nothing sensitive.
  secret_extra_vars_json = join("", [
    for present in(nonsensitive(length(var.secret_extra_vars)) > 0 ? [true] : []) : jsonencode(var.secret_extra_vars)
  ])
}

resource "terraform_data" "listeners" {
  # Everything here is stored in the state: instance ids, public addresses and a hash of the non-secret vars only.
  triggers_replace = {
    instance_ids      = [for broker in var.brokers : broker.id]
    public_ips        = [for broker in var.brokers : broker.public_ip]
    public_dns        = [for broker in var.brokers : broker.public_dns]
    playbook          = var.playbook
    extra_vars_sha256 = sha256(jsonencode(var.extra_vars))
  }

  provisioner "local-exec" {
    # bash runs the script by path, so the module folder needs no exec bit and may contain spaces
    interpreter = ["bash"]
    command     = "${path.module}/run-playbook.sh"
    environment = {
      KL_CLUSTER_NAME                 = var.cluster_name
      KL_BROKERS                      = jsonencode(var.brokers)
      KL_SSH_USER                     = var.ssh_user
      KL_SSH_PRIVATE_KEY_FILE         = var.ssh_private_key_path
      KL_SSH_PORT                     = var.ssh_port
      KL_SSH_ADDRESS                  = var.ssh_address
      KL_SSH_PROXY_COMMAND            = var.ssh_proxy_command
      KL_SSH_KNOWN_HOSTS_FILE         = var.ssh_known_hosts_file
      KL_SSH_STRICT_HOST_KEY_CHECKING = var.ssh_strict_host_key_checking
      KL_SSH_WAIT_ATTEMPTS            = var.ssh_wait_attempts
      KL_SSH_WAIT_DELAY               = var.ssh_wait_delay_seconds
      KL_SSH_CONNECT_TIMEOUT          = var.ssh_connect_timeout_seconds
      KL_USE_TERRAFORM_NAMES          = var.use_terraform_names
      KL_BECOME                       = var.become
      KL_EXTRA_VARS                   = jsonencode(var.extra_vars)
      KL_SECRET_EXTRA_VARS            = local.secret_extra_vars_json
      KL_PLAYBOOK                     = var.playbook
      KL_ANSIBLE_PLAYBOOK             = var.ansible_playbook_path
      KL_ANSIBLE_PLAYBOOK_ARGS        = jsonencode(var.ansible_playbook_args)
      KL_PYTHON                       = var.python
      KL_INVENTORY_FILE               = var.inventory_file
    }
  }
}
