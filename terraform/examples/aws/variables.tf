variable "region" {
  description = "AWS region of the cluster."
  type        = string
  default     = "us-west-2"
}

variable "ami_id" {
  description = "An AMI with Kafka installed: /etc/kafka/server.properties and a systemd unit named kafka."
  type        = string
}

variable "instance_type" {
  description = "EC2 instance type of the brokers."
  type        = string
  default     = "m6i.large"
}

variable "subnet_id" {
  description = "A public subnet (route to an internet gateway) in a VPC with DNS hostnames enabled."
  type        = string
}

variable "key_name" {
  description = "Name of the EC2 key pair whose private key is at ssh_private_key_path."
  type        = string
}

variable "ssh_private_key_path" {
  description = "Path of that key pair's private key on the machine running Terraform."
  type        = string
}

variable "ssh_user" {
  description = "The AMI's login user."
  type        = string
  default     = "ec2-user"
}

variable "admin_cidr" {
  description = "Addresses allowed to SSH to the brokers (the machine running Terraform)."
  type        = string
}

variable "client_cidr" {
  description = "Addresses of the Kafka clients outside the VPC (the EXTERNAL listener, port 9092)."
  type        = string
}

variable "cluster_name" {
  description = "Name of the cluster (tags, inventory, audit records)."
  type        = string
  default     = "kafka-demo"
}
