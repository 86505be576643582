"""How each cloud provider names and describes an instance: hostnames, DNS names, DMI strings, metadata values.

Everything here is a pure function of its inputs (plus a per-lab seed for ids), so a lab is reproducible and the
names can be checked without root. Values follow what the providers really publish:
AWS `ip-198-18-0-11.us-west-2.compute.internal` / `ec2-198-19-0-11.us-west-2.compute.amazonaws.com`,
GCP `NAME.c.PROJECT.internal` (no public DNS name), Azure `NAME.<suffix>.internal.cloudapp.net`, and so on.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field

PROVIDERS = ("aws", "gcp", "azure", "openstack", "oci", "digitalocean", "hetzner")

# Per-provider defaults for region, zone and project; a scenario file may override each.
DEFAULT_PLACEMENT = {
    "aws": {"region": "us-west-2", "zone": "us-west-2a", "project": None},
    "gcp": {"region": "us-central1", "zone": "us-central1-a", "project": "kafkaops-lab"},
    "azure": {"region": "westeurope", "zone": "1", "project": None},
    "openstack": {"region": "RegionOne", "zone": "nova", "project": "kafkaops-lab"},
    "oci": {"region": "us-ashburn-1", "zone": "AD-1", "project": None},
    "digitalocean": {"region": "nyc3", "zone": "nyc3", "project": None},
    "hetzner": {"region": "fsn1", "zone": "fsn1-dc14", "project": None},
}

# What cloud-init's ds-identify looks for in /sys/class/dmi/id, per provider.
AZURE_CHASSIS_ASSET_TAG = "7783-7084-3265-9085-8269-3286-77"
DMI_FILES = ("sys_vendor", "product_name", "product_uuid", "chassis_asset_tag", "board_vendor", "bios_vendor")
# The DMI strings every instance of a provider shows, in DMI_FILES' order without product_uuid (made per instance).
DMI_STRINGS = {
    "aws": ("Amazon EC2", "m5.large", "Amazon EC2", "Amazon EC2", "Amazon EC2"),
    "gcp": ("Google", "Google Compute Engine", "", "Google", "Google"),
    "azure": ("Microsoft Corporation", "Virtual Machine", AZURE_CHASSIS_ASSET_TAG, "Microsoft Corporation",
              "Microsoft Corporation"),
    "openstack": ("OpenStack Foundation", "OpenStack Nova", "", "", "SeaBIOS"),
    "oci": ("QEMU", "Standard PC (i440FX + PIIX, 1996)", "OracleCloud.com", "", "SeaBIOS"),
    "digitalocean": ("DigitalOcean", "Droplet", "", "", "DigitalOcean"),
    "hetzner": ("Hetzner", "vServer", "", "", "Hetzner"),
}


@dataclass(frozen=True)
class Placement:
    """Where a lab's instances run: provider, region, zone, project (GCP/OpenStack) and a seed for ids."""

    provider: str
    region: str
    zone: str
    project: str | None
    seed: str

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ValueError(f"provider {self.provider!r} is not one of {', '.join(PROVIDERS)}")


@dataclass(frozen=True)
class Identity:
    """One instance as its cloud presents it."""

    hostname: str  # what `hostname` prints on the instance (the cloud's image sets it)
    private_dns: str  # the name the network's resolver serves for the private IP
    public_dns: str | None  # the public DNS name, if the provider gives one
    search_domains: tuple[str, ...]  # resolv.conf `search` line
    hosts_lines: tuple[str, ...]  # extra /etc/hosts lines the cloud's image writes
    dmi: dict[str, str] = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)  # the metadata emulator's values file


def dashed(ip: str) -> str:
    """198.18.0.11 -> 198-18-0-11, the form AWS puts in its DNS names."""
    return ip.replace(".", "-")


def _digest(placement: Placement, *parts: str) -> str:
    """A stable hex digest for ids that must differ per lab and per instance."""
    return hashlib.sha256("/".join((placement.seed, *parts)).encode()).hexdigest()


def _uuid(placement: Placement, *parts: str) -> str:
    return str(uuid.UUID(_digest(placement, *parts)[:32]))


def aws_private_dns(ip: str, region: str) -> str:
    """AWS private DNS name of an IP: us-east-1 uses ec2.internal, every other region REGION.compute.internal."""
    domain = "ec2.internal" if region == "us-east-1" else f"{region}.compute.internal"
    return f"ip-{dashed(ip)}.{domain}"


def aws_public_dns(ip: str, region: str) -> str:
    """AWS public DNS name of a public IP (compute-1.amazonaws.com in us-east-1)."""
    domain = "compute-1.amazonaws.com" if region == "us-east-1" else f"{region}.compute.amazonaws.com"
    return f"ec2-{dashed(ip)}.{domain}"


def public_dns_name(placement: Placement, public_ip: str | None) -> str | None:
    """The provider's public DNS name for a public IP; None where the provider gives none (all but AWS)."""
    if public_ip is None or placement.provider != "aws":
        return None
    return aws_public_dns(public_ip, placement.region)


def azure_dns_suffix(placement: Placement) -> str:
    """The per-virtual-network suffix Azure's internal DNS uses (26 letters/digits, a region tag)."""
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    digest = int(_digest(placement, "azure-vnet"), 16)
    letters = []
    for _ in range(26):
        digest, index = divmod(digest, len(alphabet))
        letters.append(alphabet[index])
    return "".join(letters) + ".ax.internal.cloudapp.net"


def network_id(placement: Placement) -> str:
    """The id of the lab's virtual network as the provider spells it."""
    digest = _digest(placement, "network")
    return {
        "aws": f"vpc-0{digest[:16]}",
        "gcp": f"projects/{int(digest[:10], 16) % 10**12}/networks/default",
        "azure": "kafkaops-lab-vnet",
        "openstack": _uuid(placement, "network"),
        "oci": f"ocid1.vcn.oc1.iad.{digest[:60]}",
        "digitalocean": _uuid(placement, "network"),
        "hetzner": str(int(digest[:8], 16) % 10**7),
    }[placement.provider]


def identity(placement: Placement, name: str, private_ip: str, public_ip: str | None, mac: str) -> Identity:
    """The cloud's view of instance `name`: its names, DMI strings and metadata values."""
    provider, region, zone = placement.provider, placement.region, placement.zone
    digest = _digest(placement, "instance", name)
    product_uuid = _uuid(placement, "instance", name)
    public_dns = public_dns_name(placement, public_ip)
    hosts_lines: tuple[str, ...] = ()
    if provider == "aws":
        private_dns = aws_private_dns(private_ip, region)
        hostname = private_dns  # Amazon Linux: the full private DNS name
        search = (private_dns.split(".", 1)[1],)
        instance_id = f"i-0{digest[:16]}"
        # ds-identify recognises EC2 by a product_uuid that starts with "ec2".
        product_uuid = "ec2" + product_uuid[3:]
    elif provider == "gcp":
        private_dns = f"{name}.c.{placement.project}.internal"
        hostname = name
        search = (f"c.{placement.project}.internal", "google.internal")
        hosts_lines = (f"{private_ip} {private_dns} {name}  # Added by Google",)
        instance_id = str(int(digest[:15], 16))
    elif provider == "azure":
        suffix = azure_dns_suffix(placement)
        private_dns = f"{name}.{suffix}"
        hostname = name
        search = (suffix,)
        instance_id = product_uuid
    elif provider == "openstack":
        private_dns = f"host-{dashed(private_ip)}.openstacklocal"  # Neutron's default DHCP name
        hostname = name
        search = ("openstacklocal",)
        instance_id = product_uuid
    elif provider == "oci":
        private_dns = f"{name}.sub1.vcn1.oraclevcn.com"
        hostname = name
        search = ("sub1.vcn1.oraclevcn.com",)
        instance_id = f"ocid1.instance.oc1.iad.{digest[:60]}"
    else:  # digitalocean, hetzner
        # No internal DNS; the lab's resolver serves the instance name so the cluster can form.
        id_digits = {"digitalocean": 9, "hetzner": 8}[provider]
        private_dns = name
        hostname = name
        search = ()
        instance_id = str(int(digest[:8], 16) % 10**id_digits)
    dmi = dict(zip((file for file in DMI_FILES if file != "product_uuid"), DMI_STRINGS[provider], strict=True))
    dmi["product_uuid"] = product_uuid
    metadata = {
        "provider": provider,
        "instance_id": instance_id,
        "region": region,
        "zone": zone,
        "private_ip": private_ip,
        "private_dns": private_dns,
        "public_ip": public_ip,
        "public_dns": public_dns,
        "network_id": network_id(placement),
        "hostname": hostname,
        "mac": mac,
        "imdsv1": False,
    }
    if placement.project:
        metadata["project_id"] = placement.project
    if provider == "oci":
        metadata["region_code"] = "IAD"
    return Identity(
        hostname=hostname,
        private_dns=private_dns,
        public_dns=public_dns,
        search_domains=search,
        hosts_lines=hosts_lines,
        dmi=dmi,
        metadata=metadata,
    )
