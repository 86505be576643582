"""Turn a server.properties mapping into the stand-in's listener, role and storage settings.

Kafka's own refusal rules are applied first by the collection's ``_kafka_rules`` (see ``load_config``); what is
left here is reading the settings the way Kafka interprets them once they are valid.
"""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass, field
from pathlib import Path


class ConfigError(ValueError):
    """A setting the stand-in cannot honour (Kafka's own refusals come from _kafka_rules instead)."""


@dataclass(frozen=True)
class Endpoint:
    """One ``NAME://host:port`` entry; ``name`` is upper-cased as Kafka does."""

    name: str
    host: str
    port: int


@dataclass(frozen=True)
class TlsSettings:
    """Where the PEM key/chain and CA of one SSL listener are, and whether client certificates are required."""

    keystore_location: str
    key_password: str | None
    truststore_location: str | None
    client_auth: str  # none | requested | required

    def server_context(self) -> ssl.SSLContext:
        """An SSLContext for the listener; raises ConfigError naming the file that cannot be loaded."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            context.load_cert_chain(self.keystore_location, password=self.key_password)
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(f"ssl.keystore.location {self.keystore_location!r} cannot be loaded: {exc}") from exc
        if self.truststore_location:
            try:
                context.load_verify_locations(cafile=self.truststore_location)
            except (OSError, ssl.SSLError) as exc:
                raise ConfigError(
                    f"ssl.truststore.location {self.truststore_location!r} cannot be loaded: {exc}"
                ) from exc
        context.verify_mode = {
            "required": ssl.CERT_REQUIRED,
            "requested": ssl.CERT_OPTIONAL,
        }.get(self.client_auth, ssl.CERT_NONE)
        return context


@dataclass(frozen=True)
class Listener:
    """A socket the stand-in binds: its name, bind address, security protocol and role."""

    name: str
    host: str  # "" binds every interface
    port: int  # 0 binds an ephemeral port
    protocol: str
    is_controller: bool
    tls: TlsSettings | None = None


@dataclass
class StandinConfig:
    """Everything the stand-in needs from server.properties, already interpreted."""

    node_id: int
    roles: tuple[str, ...]  # () for ZooKeeper mode, which acts as a broker
    rack: str | None
    listeners: list[Listener]
    # Broker advertised endpoints by listener name (controller names dropped, empty hosts resolved);
    # a port of 0 is replaced by the bound port once the listener is bound.
    advertised: dict[str, Endpoint]
    protocol_map: dict[str, str]
    inter_broker_listener: str
    controller_listener_names: tuple[str, ...]
    num_partitions: int
    auto_create_topics: bool
    properties: dict[str, str] = field(repr=False, default_factory=dict)

    @property
    def is_broker(self) -> bool:
        """True unless process.roles is exactly ``controller``."""
        return not self.roles or "broker" in self.roles

    @property
    def is_controller(self) -> bool:
        """True when process.roles includes ``controller``."""
        return "controller" in self.roles


def parse_endpoints(value: str, key: str) -> list[Endpoint]:
    """Parse a listener list with the collection's Kafka-faithful parser; raises ConfigError naming ``key``."""
    try:
        parsed = _endpoints().parse_listener_list(value)
    except ValueError as exc:
        raise ConfigError(f"{key}: {exc}") from None
    return [Endpoint(item.listener, item.host, item.port) for item in parsed]


def _endpoints():
    """The collection's endpoint-syntax module (imported late so a missing collection gives a clear error)."""
    from ansible_collections.kafkaops.listeners.plugins.module_utils import _endpoints as endpoints

    return endpoints


def _listener_setting(props: dict[str, str], listener: str, key: str) -> str | None:
    """A setting with Kafka's per-listener override ``listener.name.<name>.<key>`` taking precedence."""
    override = props.get(f"listener.name.{listener.lower()}.{key}")
    return override if override is not None else props.get(key)


def _tls_settings(props: dict[str, str], listener: str) -> TlsSettings:
    keystore_type = (_listener_setting(props, listener, "ssl.keystore.type") or "JKS").upper()
    location = _listener_setting(props, listener, "ssl.keystore.location")
    if keystore_type != "PEM":
        raise ConfigError(
            f"listener {listener}: the stand-in reads only PEM keystores (ssl.keystore.type=PEM), got {keystore_type}"
        )
    if not location:
        raise ConfigError(f"listener {listener}: ssl.keystore.location is required for an SSL listener")
    truststore_type = (_listener_setting(props, listener, "ssl.truststore.type") or "PEM").upper()
    if truststore_type != "PEM":
        raise ConfigError(
            f"listener {listener}: the stand-in reads only PEM truststores (ssl.truststore.type=PEM), "
            f"got {truststore_type}"
        )
    client_auth = (_listener_setting(props, listener, "ssl.client.auth") or "none").strip().lower()
    if client_auth not in ("none", "requested", "required"):
        raise ConfigError(f"listener {listener}: ssl.client.auth must be none, requested or required: {client_auth}")
    return TlsSettings(
        keystore_location=location,
        key_password=_listener_setting(props, listener, "ssl.key.password"),
        truststore_location=_listener_setting(props, listener, "ssl.truststore.location"),
        client_auth=client_auth,
    )


def _int_setting(props: dict[str, str], key: str, default: int | None) -> int | None:
    raw = props.get(key)
    if raw is None or not raw.strip():
        return default
    try:
        return int(raw.strip())
    except ValueError:
        raise ConfigError(f"{key} must be an integer, got {raw!r}") from None


def _bool_setting(props: dict[str, str], key: str, default: bool) -> bool:
    raw = props.get(key)
    if raw is None or not raw.strip():
        return default
    value = raw.strip().lower()
    if value not in ("true", "false"):
        raise ConfigError(f"{key} must be true or false, got {raw!r}")
    return value == "true"


def interpret(props: dict[str, str], canonical_hostname: str | None = None) -> StandinConfig:
    """Read server.properties the way Kafka does once its validation passed.

    ``canonical_hostname`` is what an empty advertised host becomes (default: ``socket.getfqdn()``).
    Raises ConfigError for settings the stand-in cannot honour (non-PEM keystores, missing node id, ...).
    """
    served = _endpoints()
    roles = served.process_roles(props)
    controller_names = served.controller_listener_names(props)
    try:
        protocol_map = served.effective_protocol_map(props)
        advertised_list = [Endpoint(item.listener, item.host, item.port)
                           for item in served.advertised_broker_endpoints(props)]
    except ValueError as exc:
        raise ConfigError(str(exc)) from None

    node_id = None
    for key in served.NODE_ID_KEYS:
        node_id = _int_setting(props, key, None) if node_id is None else node_id
    if node_id is None or node_id < 0:
        raise ConfigError("node.id (or broker.id) must be set to a non-negative id: the stand-in has no id generator")

    bound = parse_endpoints(props.get("listeners", served.DEFAULT_LISTENERS), "listeners")

    listeners = []
    for endpoint in bound:
        protocol = protocol_map.get(endpoint.name)
        if protocol is None:
            raise ConfigError(f"No security protocol defined for listener {endpoint.name}")
        tls = _tls_settings(props, endpoint.name) if protocol in ("SSL", "SASL_SSL") else None
        listeners.append(
            Listener(endpoint.name, endpoint.host, endpoint.port, protocol, endpoint.name in controller_names, tls)
        )

    hostname = canonical_hostname
    advertised = {}
    for endpoint in advertised_list:  # controller listeners already dropped, as Kafka does
        host = endpoint.host
        if not host:
            hostname = hostname or socket.getfqdn()
            host = hostname
        advertised[endpoint.name] = Endpoint(endpoint.name, host, endpoint.port)

    inter_broker = served.inter_broker_listener(props)

    num_partitions = _int_setting(props, "num.partitions", 1)
    if num_partitions < 1:
        raise ConfigError(f"num.partitions must be at least 1, got {num_partitions}")

    rack = props.get("broker.rack")
    return StandinConfig(
        node_id=node_id,
        roles=roles,
        rack=rack.strip() if rack and rack.strip() else None,
        listeners=listeners,
        advertised=advertised,
        protocol_map=protocol_map,
        inter_broker_listener=inter_broker,
        controller_listener_names=tuple(controller_names),
        num_partitions=num_partitions,
        auto_create_topics=_bool_setting(props, "auto.create.topics.enable", True),
        properties=dict(props),
    )


def read_properties(path: Path) -> dict[str, str]:
    """server.properties as a dict, parsed by the collection's own properties parser."""
    from ansible_collections.kafkaops.listeners.plugins.module_utils._properties import parse_properties

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--config {path}: cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"--config {path}: not UTF-8 text: {exc}") from None
    return parse_properties(text).to_dict()


def kafka_refusals(props: dict[str, str]) -> list[dict]:
    """Kafka's own startup refusals for ``props`` (``[{"rule": "R<n>", "message": ...}]``), from _kafka_rules."""
    from ansible_collections.kafkaops.listeners.plugins.module_utils._kafka_rules import check_kafka_config

    return list(check_kafka_config(props))
