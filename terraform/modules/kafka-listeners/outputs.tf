output "run_id" {
  description = "Id of the terraform_data resource; it changes every time the playbook is run again."
  value       = terraform_data.listeners.id
}

output "triggers" {
  description = "The values whose change re-runs the playbook (instance ids, public addresses, playbook, vars hash)."
  value       = terraform_data.listeners.triggers_replace
}
