variable "brokers" {
  description = <<-EOT
    The broker instances, in rollout order. name: the inventory host name (letters, digits, '-', '_', '.');
    id: the cloud's instance id; private_ip, private_dns, public_ip, public_dns: the instance's addresses and names
    ("" or null when it has none; AWS gives public_dns only to instances with a public IP in a VPC with DNS hostnames).
  EOT
  type = list(object({
    name        = string
    id          = string
    private_ip  = string
    private_dns = optional(string, "")
    public_ip   = optional(string, "")
    public_dns  = optional(string, "")
  }))

  validation {
    condition     = length(var.brokers) > 0
    error_message = "brokers: give at least one broker instance."
  }
  validation {
    condition     = length(distinct([for broker in var.brokers : broker.name])) == length(var.brokers)
    error_message = "brokers: every broker needs a different name (it is its inventory host name)."
  }
  validation {
    condition     = alltrue([for broker in var.brokers : can(regex("^[A-Za-z0-9][A-Za-z0-9_.-]*$", broker.name))])
    error_message = "brokers: a name may only hold letters, digits, '-', '_' and '.', and must start with a letter or digit."
  }
}

variable "cluster_name" {
  description = "The cluster's name: the broker role's broker_cluster_name and the verify role's verify_cluster_name."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9][A-Za-z0-9_.-]*$", var.cluster_name))
    error_message = "cluster_name: use letters, digits, '-', '_' and '.', starting with a letter or digit."
  }
}

variable "ssh_user" {
  description = "The user Ansible logs in as (it needs sudo, or be root)."
  type        = string
  default     = "ec2-user"
  nullable    = false
}

variable "ssh_private_key_path" {
  # A path, not a secret: the key itself never passes through Terraform, its state or its logs.
  description = "Path of the SSH private key on the machine running Terraform (the key is read by ssh, never by Terraform)."
  type        = string

  validation {
    condition     = length(var.ssh_private_key_path) > 0 && !startswith(trimspace(var.ssh_private_key_path), "-----BEGIN")
    error_message = "ssh_private_key_path: give the path of the key file, not the key itself."
  }
}

variable "ssh_port" {
  description = "The brokers' SSH port."
  type        = number
  default     = 22
  nullable    = false
}

variable "ssh_address" {
  description = "Which address Ansible connects to: public_ip, public_dns, private_ip or private_dns (private ones usually with ssh_proxy_command)."
  type        = string
  default     = "public_ip"
  nullable    = false

  validation {
    condition     = contains(["public_ip", "public_dns", "private_ip", "private_dns"], var.ssh_address)
    error_message = "ssh_address: choose one of public_ip, public_dns, private_ip, private_dns."
  }
}

variable "ssh_proxy_command" {
  description = "An ssh ProxyCommand (for a bastion: \"ssh -W %h:%p -i KEY user@bastion\"); empty for direct connections."
  type        = string
  default     = ""
  nullable    = false
}

variable "ssh_known_hosts_file" {
  description = "known_hosts file with the brokers' host keys; empty: a fresh file for each run (trust on first use)."
  type        = string
  default     = ""
  nullable    = false
}

variable "ssh_strict_host_key_checking" {
  description = "yes (only keys already in ssh_known_hosts_file) or accept-new (record unknown keys, refuse changed ones)."
  type        = string
  default     = "accept-new"
  nullable    = false

  validation {
    condition     = contains(["yes", "accept-new"], var.ssh_strict_host_key_checking)
    error_message = "ssh_strict_host_key_checking: choose yes or accept-new (never no)."
  }
}

variable "ssh_wait_attempts" {
  description = "How many times to try SSH on each broker before giving up (a new instance boots for a while)."
  type        = number
  default     = 30
  nullable    = false

  validation {
    condition     = var.ssh_wait_attempts >= 1 && var.ssh_wait_attempts <= 1000 && floor(var.ssh_wait_attempts) == var.ssh_wait_attempts
    error_message = "ssh_wait_attempts: a whole number from 1 to 1000."
  }
}

variable "ssh_wait_delay_seconds" {
  description = "Seconds between two SSH attempts on one broker."
  type        = number
  default     = 10
  nullable    = false

  validation {
    condition     = var.ssh_wait_delay_seconds >= 0 && var.ssh_wait_delay_seconds <= 600 && floor(var.ssh_wait_delay_seconds) == var.ssh_wait_delay_seconds
    error_message = "ssh_wait_delay_seconds: a whole number from 0 to 600."
  }
}

variable "ssh_connect_timeout_seconds" {
  description = "Timeout of one SSH attempt (ssh's ConnectTimeout)."
  type        = number
  default     = 10
  nullable    = false

  validation {
    condition     = var.ssh_connect_timeout_seconds >= 1 && var.ssh_connect_timeout_seconds <= 300 && floor(var.ssh_connect_timeout_seconds) == var.ssh_connect_timeout_seconds
    error_message = "ssh_connect_timeout_seconds: a whole number from 1 to 300."
  }
}

variable "use_terraform_names" {
  description = "Give the broker role Terraform's addresses as static facts instead of asking the instance metadata service."
  type        = bool
  default     = false
  nullable    = false
}

variable "become" {
  description = "Whether the broker role escalates (sudo to root) for the tasks that write Kafka's configuration and restart it: the inventory's broker_become. A root login runs no sudo either way."
  type        = bool
  default     = true
  nullable    = false
}

variable "extra_vars" {
  description = "Extra variables for the playbook (broker_* and verify_* role options). Not secret: they are hashed into the state."
  type        = any
  default     = {}
  nullable    = false

  validation {
    condition     = can(keys(var.extra_vars))
    error_message = "extra_vars: give a map of variable names to values."
  }
}

variable "secret_extra_vars" {
  description = "Secret extra variables (passwords). Passed in the environment and a mode-0600 temporary file; while it is not empty Terraform hides the playbook's output."
  type        = map(string)
  default     = {}
  nullable    = false
  sensitive   = true
}

variable "playbook" {
  description = "The playbook to run: a collection playbook name or a path."
  type        = string
  default     = "kafkaops.listeners.site"
  nullable    = false
}

variable "ansible_playbook_path" {
  description = "The ansible-playbook command (a path, or a name found on PATH)."
  type        = string
  default     = "ansible-playbook"
  nullable    = false
}

variable "ansible_playbook_args" {
  description = "Further ansible-playbook arguments, e.g. [\"--diff\"]."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "python" {
  description = "Python 3 on the machine running Terraform, used to write the inventory (Ansible needs one anyway)."
  type        = string
  default     = "python3"
  nullable    = false
}

variable "inventory_file" {
  description = "Where to keep a copy of the generated inventory (to re-run the playbook by hand); empty keeps none."
  type        = string
  default     = ""
  nullable    = false
}
