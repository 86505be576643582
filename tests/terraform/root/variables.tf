# Untyped, and null unless the test's variables file sets them: the module's own types, validations and defaults
# (its defaulted variables are not nullable, so null means the default) apply to the values.
variable "brokers" {}

variable "cluster_name" {}

variable "ssh_user" {
  default = null
}

variable "ssh_private_key_path" {}

variable "ssh_port" {
  default = null
}

variable "ssh_address" {
  default = null
}

variable "ssh_proxy_command" {
  default = null
}

variable "ssh_known_hosts_file" {
  default = null
}

variable "ssh_strict_host_key_checking" {
  default = null
}

variable "ssh_wait_attempts" {
  default = null
}

variable "ssh_wait_delay_seconds" {
  default = null
}

variable "ssh_connect_timeout_seconds" {
  default = null
}

variable "use_terraform_names" {
  default = null
}

variable "extra_vars" {
  default = null
}

variable "playbook" {
  default = null
}

variable "ansible_playbook_path" {
  default = null
}

variable "ansible_playbook_args" {
  default = null
}

variable "python" {
  default = null
}

variable "inventory_file" {
  default = null
}

variable "secret_extra_vars" {
  default   = null
  sensitive = true
}
