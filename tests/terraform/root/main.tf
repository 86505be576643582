# The root module the Terraform tests apply. It passes every input of the kafka-listeners module through from a
# variables file the test writes (for the lab: its brokers, SSH key, known_hosts and ProxyCommand), so each run
# states all of its inputs. No provider: `terraform init` works offline.
terraform {
  required_version = ">= 1.4"
  # each test gives its run a state file of its own: terraform init -backend-config=path=...
  backend "local" {}
}

module "kafka_listeners" {
  source = "../../../terraform/modules/kafka-listeners"

  brokers                      = var.brokers
  cluster_name                 = var.cluster_name
  ssh_user                     = var.ssh_user
  ssh_private_key_path         = var.ssh_private_key_path
  ssh_port                     = var.ssh_port
  ssh_address                  = var.ssh_address
  ssh_proxy_command            = var.ssh_proxy_command
  ssh_known_hosts_file         = var.ssh_known_hosts_file
  ssh_strict_host_key_checking = var.ssh_strict_host_key_checking
  ssh_wait_attempts            = var.ssh_wait_attempts
  ssh_wait_delay_seconds       = var.ssh_wait_delay_seconds
  ssh_connect_timeout_seconds  = var.ssh_connect_timeout_seconds
  use_terraform_names          = var.use_terraform_names
  extra_vars                   = var.extra_vars
  secret_extra_vars            = var.secret_extra_vars
  playbook                     = var.playbook
  ansible_playbook_path        = var.ansible_playbook_path
  ansible_playbook_args        = var.ansible_playbook_args
  python                       = var.python
  inventory_file               = var.inventory_file
}

output "run_id" {
  description = "Changes whenever the playbook ran again."
  value       = module.kafka_listeners.run_id
}

output "triggers" {
  description = "What re-runs the playbook when it changes."
  value       = module.kafka_listeners.triggers
}
