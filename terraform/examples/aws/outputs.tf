output "bootstrap_servers_external" {
  description = "Bootstrap servers for clients outside the VPC."
  value       = join(",", [for instance in aws_instance.broker : "${instance.public_dns}:9092"])
}

output "listeners_run_id" {
  description = "Changes whenever the playbook ran again (new instances, or a stop/start changed a public address)."
  value       = module.kafka_listeners.run_id
}
