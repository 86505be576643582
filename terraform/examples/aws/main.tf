# Three Kafka brokers on EC2 with public IPs, and the kafka-listeners hook that makes them advertise names their
# clients can reach. AWS gives each instance a public DNS name that resolves to the private IP inside the VPC, so
# with the VPC's default resolver the broker role picks one listener (option 1); with a resolver that does not
# answer for the public names it picks INTERNAL/EXTERNAL listeners (option 2).

data "aws_subnet" "brokers" {
  id = var.subnet_id
}

resource "aws_security_group" "kafka" {
  name_prefix = "${var.cluster_name}-"
  description = "Kafka brokers of ${var.cluster_name}"
  vpc_id      = data.aws_subnet.brokers.vpc_id

  ingress {
    description = "SSH from the machine running Terraform and Ansible"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = [var.admin_cidr]
  }
  ingress {
    description = "Kafka clients outside the VPC"
    from_port   = 9092
    to_port     = 9092
    protocol    = "tcp"
    cidr_blocks = [var.client_cidr]
  }
  ingress {
    description = "Brokers, controllers and in-VPC clients (9092 single, 19092 INTERNAL, 9093 CONTROLLER)"
    from_port   = 9092
    to_port     = 19092
    protocol    = "tcp"
    self        = true
  }
  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_instance" "broker" {
  count                       = 3
  ami                         = var.ami_id
  instance_type               = var.instance_type
  subnet_id                   = var.subnet_id
  key_name                    = var.key_name
  vpc_security_group_ids      = [aws_security_group.kafka.id]
  associate_public_ip_address = true

  # the broker role reads the instance's names from IMDSv2; a hop limit of 1 keeps containers away from it
  metadata_options {
    http_endpoint               = "enabled"
    http_tokens                 = "required"
    http_put_response_hop_limit = 1
  }

  tags = {
    Name    = "${var.cluster_name}-${count.index + 1}"
    cluster = var.cluster_name
  }
}

module "kafka_listeners" {
  source = "../../modules/kafka-listeners"

  cluster_name = var.cluster_name
  brokers = [
    for index, instance in aws_instance.broker : {
      name        = "${var.cluster_name}-${index + 1}"
      id          = instance.id
      private_ip  = instance.private_ip
      private_dns = instance.private_dns
      public_ip   = instance.public_ip
      public_dns  = instance.public_dns
    }
  ]
  ssh_user             = var.ssh_user
  ssh_private_key_path = var.ssh_private_key_path
  ssh_address          = "public_ip"
  extra_vars = {
    broker_restart_method = "systemd"
    broker_service_name   = "kafka"
  }
  ansible_playbook_args = ["--diff"]
}
