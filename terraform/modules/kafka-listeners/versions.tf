# The module needs no provider: terraform_data and local-exec are built into Terraform (1.4 added terraform_data,
# 1.3 optional object attributes with defaults).
terraform {
  required_version = ">= 1.4"
}
