# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Kafka's client security in one place: the security protocols and whether one uses TLS or SASL, the security
options of the collection's Kafka client (kafka_metadata's ``security_protocol``, ``ssl_*``, ``sasl_*``), and their
conversion to and from a client's properties in Java's or librdkafka's names, each with its validation; the client
keys the client_config role manages, and its rules for the settings it writes.

Private to kafkaops.listeners: no compatibility promise outside the collection. Standard library only (modules run
on managed nodes).
"""

from __future__ import annotations

import json
import re

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
"""Kafka's ``SecurityProtocol`` names, in Kafka's declaration order."""
_TLS_PROTOCOLS = frozenset(("SSL", "SASL_SSL"))
_SASL_PROTOCOLS = frozenset(("SASL_PLAINTEXT", "SASL_SSL"))

#: a listener's TLS and SASL client settings, in the order they are listed (the kafka_metadata options of that name)
SSL_OPTIONS = ("ssl_ca_file", "ssl_cert_file", "ssl_key_file", "ssl_key_password")
SASL_OPTIONS = ("sasl_mechanism", "sasl_username", "sasl_password", "sasl_oauthbearer_token")
#: what a check of an endpoint with its listener's TLS and SASL reports (kafka_metadata's endpoints, the audit's
#: probe records); kept here, not beside the check, so that reading records needs no TLS or network code
SECURITY_KEYS = ("tls_verified", "tls_outcome", "authenticated", "security_error")

DIALECTS = ("java", "librdkafka")
#: the JAAS login module a Java client names for each SASL mechanism it logs in with by user and password
LOGIN_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}
# the ssl.* and sasl.* properties read back per dialect; any other one changes what a client does in a way the
# collection's client cannot copy (Java's reading also takes librdkafka's file and login keys, as it always has)
_READ_KEYS = {
    "java": {
        "ssl.": frozenset(("ssl.truststore.type", "ssl.truststore.location", "ssl.ca.location", "ssl.keystore.type",
                           "ssl.keystore.location", "ssl.key.password", "ssl.certificate.location",
                           "ssl.key.location", "ssl.endpoint.identification.algorithm")),
        "sasl.": frozenset(("sasl.mechanism", "sasl.jaas.config", "sasl.username", "sasl.password")),
    },
    "librdkafka": {
        "ssl.": frozenset(("ssl.ca.location", "ssl.certificate.location", "ssl.key.location", "ssl.key.password",
                           "ssl.endpoint.identification.algorithm")),
        "sasl.": frozenset(("sasl.mechanisms", "sasl.username", "sasl.password")),
    },
}
_MECHANISM_KEY = {"java": "sasl.mechanism", "librdkafka": "sasl.mechanisms"}


class ClientSecurityError(ValueError):
    """A client security option or property that cannot be used or converted; the message names the option or
    property and what is wrong with it, never a password or token."""


def uses_tls(protocol) -> bool:
    """Whether the (upper-case) security protocol ``protocol`` speaks TLS."""
    return protocol in _TLS_PROTOCOLS


def uses_sasl(protocol) -> bool:
    """Whether the (upper-case) security protocol ``protocol`` authenticates with SASL."""
    return protocol in _SASL_PROTOCOLS


def uses_tls_or_sasl(protocol) -> bool:
    """Whether ``protocol`` is one of Kafka's SSL or SASL security protocols (not PLAINTEXT, nor any other name)."""
    return uses_tls(protocol) or uses_sasl(protocol)


def protocol_of(tls: bool, sasl: bool) -> str:
    """The security protocol that speaks TLS when ``tls`` and SASL when ``sasl``."""
    return ("SASL_" if sasl else "") + ("SSL" if tls else "PLAINTEXT")


def protocol_options(protocol) -> tuple:
    """The client settings (:data:`SSL_OPTIONS`, :data:`SASL_OPTIONS`) that ``protocol`` uses."""
    return (SSL_OPTIONS if uses_tls(protocol) else ()) + (SASL_OPTIONS if uses_sasl(protocol) else ())


def listener_settings(settings: dict, listener) -> dict:
    """The client settings of listener ``listener`` in ``settings`` (listener name -> settings, as the roles'
    ``broker_client_security`` and ``verify_client_security``): its own entry (the name upper-cased as Kafka
    compares them, or as given), else the ``default`` entry, else none."""
    return settings.get(str(listener).upper(), settings.get(str(listener), settings.get("default", {}))) or {}


def listener_options(protocol: str, settings, listener) -> dict:
    """kafka_metadata's security options for listener ``listener`` speaking ``protocol`` (one of
    :data:`SECURITY_PROTOCOLS`), from its client settings ``settings``: ``security_protocol`` and the settings the
    protocol uses, unset ones left out. Raises ClientSecurityError for an unknown setting, or SASL without a
    mechanism."""
    unknown = sorted(set(settings) - set(SSL_OPTIONS) - set(SASL_OPTIONS))
    if unknown:
        raise ClientSecurityError("unknown client setting(s) %s for listener %s (known: %s)"
                                  % (", ".join(unknown), listener, ", ".join(SSL_OPTIONS + SASL_OPTIONS)))
    options = {"security_protocol": protocol}
    options.update((key, settings[key]) for key in protocol_options(protocol) if settings.get(key) is not None)
    if uses_sasl(protocol) and not options.get("sasl_mechanism"):
        raise ClientSecurityError("listener %s speaks %s, but its client settings name no sasl_mechanism"
                                  % (listener, protocol))
    return options


# ---------------------------------------------------------------------------------- options -> client properties


def _check_dialect(dialect) -> None:
    if dialect not in DIALECTS:
        raise ClientSecurityError("dialect must be one of %s, not %r" % (", ".join(DIALECTS), dialect))


def _jaas_quoted(value):
    """``value`` as a double-quoted JAAS option value (Kafka's JAAS parser reads backslash escapes in quotes)."""
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


def _tls_properties(options, dialect):
    ca_file, cert_file = options.get("ssl_ca_file"), options.get("ssl_cert_file")
    key_file, key_password = options.get("ssl_key_file"), options.get("ssl_key_password")
    if (key_file or key_password) and not cert_file:
        raise ClientSecurityError("ssl_key_file and ssl_key_password need ssl_cert_file (the client certificate)")
    props = {"ssl.endpoint.identification.algorithm": "https"}
    if dialect == "java":
        if key_file and key_file != cert_file:
            raise ClientSecurityError(
                "Java clients read the client key and certificate from one PEM file (ssl.keystore.location): put "
                "both in the file ssl_cert_file names, and drop ssl_key_file")
        if ca_file:
            props.update({"ssl.truststore.type": "PEM", "ssl.truststore.location": ca_file})
        if cert_file:
            props.update({"ssl.keystore.type": "PEM", "ssl.keystore.location": cert_file})
        if key_password:
            props["ssl.key.password"] = key_password
        return props
    props["enable.ssl.certificate.verification"] = "true"
    if ca_file:
        props["ssl.ca.location"] = ca_file
    if cert_file:
        props.update({"ssl.certificate.location": cert_file, "ssl.key.location": key_file or cert_file})
    if key_password:
        props["ssl.key.password"] = key_password
    return props


def _sasl_properties(options, dialect):
    mechanism = str(options.get("sasl_mechanism") or "")
    if mechanism == "OAUTHBEARER":
        # the token endpoint and login settings are the site's (further properties); a fixed token would expire
        return {_MECHANISM_KEY[dialect]: mechanism}
    if mechanism not in LOGIN_MODULES:
        raise ClientSecurityError("client files are written for the SASL mechanisms %s, not %r"
                                  % (", ".join(("OAUTHBEARER",) + tuple(LOGIN_MODULES)), mechanism))
    username, password = options.get("sasl_username"), options.get("sasl_password")
    if not username or password is None:
        raise ClientSecurityError("SASL %s needs sasl_username and sasl_password" % mechanism)
    if dialect == "librdkafka":
        return {"sasl.mechanisms": mechanism, "sasl.username": str(username), "sasl.password": str(password)}
    jaas = "%s required username=%s password=%s;" % (
        LOGIN_MODULES[mechanism], _jaas_quoted(str(username)), _jaas_quoted(str(password)))
    return {"sasl.mechanism": mechanism, "sasl.jaas.config": jaas}


def options_to_properties(options, dialect="java") -> dict:
    """The TLS and SASL client properties (``dialect``: Java's or librdkafka's names, values strings, in the order a
    file should list them) for the security ``options``; ``security.protocol`` itself is left to the caller.

    TLS always verifies the host name. OAUTHBEARER gives the mechanism only: the token is never written. Raises
    ClientSecurityError naming the option that cannot be written (never its value)."""
    _check_dialect(dialect)
    if not isinstance(options, dict):
        raise ClientSecurityError("expects the mapping kafka_client_security returns")
    protocol = str(options.get("security_protocol") or "PLAINTEXT").upper()
    props = {}
    if uses_tls(protocol):
        props.update(_tls_properties(options, dialect))
    if uses_sasl(protocol):
        props.update(_sasl_properties(options, dialect))
    multiline = sorted(key for key, value in options.items() if any(c in str(value) for c in "\r\n"))
    if multiline:
        raise ClientSecurityError("%s must be one line" % ", ".join(multiline))
    return props


# ---------------------------------------------------------------------------------- client properties -> options


_JAAS_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([=;])|([^\s=;"]+))', re.S)


def parse_jaas(text: str) -> tuple:
    """(login module class, options) of a one-module ``sasl.jaas.config`` value, as Kafka's JaasConfig reads it:
    ``Class flag key=value ... ;`` with double-quoted or bare values."""
    tokens = []
    pos = 0
    while text[pos:].strip():
        match = _JAAS_TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise ClientSecurityError("sasl.jaas.config cannot be parsed at character %d" % pos)
        quoted, mark, word = match.groups()
        tokens.append(("value", re.sub(r"\\(.)", r"\1", quoted)) if quoted is not None else
                      ("mark", mark) if mark else ("word", word))
        pos = match.end()
    if len(tokens) < 3 or tokens[0][0] != "word" or tokens[1][0] != "word" or tokens[-1] != ("mark", ";"):
        raise ClientSecurityError("sasl.jaas.config is not of the form 'LoginModuleClass required key=\"value\" ...;'")
    if tokens[1][1] not in ("required", "requisite", "sufficient", "optional"):
        raise ClientSecurityError("sasl.jaas.config: %r is not a JAAS control flag (required, ...)" % tokens[1][1])
    options = {}
    body = tokens[2:-1]
    if ("mark", ";") in body:
        raise ClientSecurityError("sasl.jaas.config names more than one login module; a client uses exactly one")
    if len(body) % 3:
        raise ClientSecurityError("sasl.jaas.config: every option must be key=value")
    for index in range(0, len(body), 3):
        key, equals, value = body[index:index + 3]
        if key[0] != "word" or equals != ("mark", "=") or value[0] == "mark":
            raise ClientSecurityError("sasl.jaas.config: every option must be key=value")
        options[key[1]] = value[1]
    return tokens[0][1], options


def _sasl_options(props: dict, dialect: str) -> dict:
    mechanism_key = _MECHANISM_KEY[dialect]
    mechanism = props.get(mechanism_key, "").strip().upper()
    if not mechanism:
        raise ClientSecurityError("%s is not set, so a %s client would use GSSAPI (Kerberos), which the doctor does "
                                  "not speak; it speaks PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512"
                                  % (mechanism_key, "Java" if dialect == "java" else "librdkafka"))
    if mechanism not in LOGIN_MODULES:
        raise ClientSecurityError("%s %s is not supported here; the doctor speaks PLAIN, SCRAM-SHA-256 and "
                                  "SCRAM-SHA-512 (OAUTHBEARER needs a token the doctor cannot fetch)"
                                  % (mechanism_key, mechanism))
    if dialect == "java" and "sasl.jaas.config" in props:
        login_module, options = parse_jaas(props["sasl.jaas.config"])
        expected = LOGIN_MODULES[mechanism].rsplit(".", 1)[-1]
        if login_module.rsplit(".", 1)[-1] != expected:
            raise ClientSecurityError("sasl.jaas.config names %s, but sasl.mechanism %s needs %s"
                                      % (login_module, mechanism, expected))
        missing = [name for name in ("username", "password") if name not in options]
        if missing:
            raise ClientSecurityError("sasl.jaas.config has no %s" % " and no ".join(missing))
        username, password = options["username"], options["password"]
    elif "sasl.username" in props and "sasl.password" in props:
        username, password = props["sasl.username"], props["sasl.password"]
    else:
        raise ClientSecurityError("%s %s needs %s" % (mechanism_key, mechanism, "sasl.jaas.config with username and "
                                                      "password" if dialect == "java" else
                                                      "sasl.username and sasl.password"))
    return {"sasl_mechanism": mechanism, "sasl_username": username, "sasl_password": password}


def _store_file(props: dict, kind: str, librdkafka_key: str):
    """The PEM file of Java's ``ssl.<kind>.location`` (or librdkafka's key); KEY.type must say PEM."""
    location = props.get("ssl.%s.location" % kind)
    if location is None:
        return props.get(librdkafka_key)
    store_type = props.get("ssl.%s.type" % kind, "JKS").strip().upper()
    if store_type != "PEM":
        raise ClientSecurityError(
            "ssl.%s.type is %s; the doctor reads PEM files only: convert the store to PEM and set ssl.%s.type=PEM "
            "(or use %s)" % (kind, store_type, kind, librdkafka_key))
    if props.get("ssl.%s.password" % kind):
        raise ClientSecurityError("ssl.%s.password is set, but a PEM %s has no store password (Kafka refuses it too)"
                                  % (kind, kind))
    return location


def _ssl_options(props: dict, dialect: str) -> dict:
    algorithm = props.get("ssl.endpoint.identification.algorithm", "https").strip().lower()
    if algorithm != "https":
        raise ClientSecurityError("ssl.endpoint.identification.algorithm=%s turns off host name verification; the "
                                  "doctor checks what a verifying client meets, so remove it" % algorithm)
    if dialect == "java":
        ca_file = _store_file(props, "truststore", "ssl.ca.location")
        cert_file = _store_file(props, "keystore", "ssl.certificate.location")
    else:
        verification = props.get("enable.ssl.certificate.verification", "true").strip().lower()
        if verification != "true":
            raise ClientSecurityError("enable.ssl.certificate.verification=%s turns off certificate verification; "
                                      "the doctor checks what a verifying client meets, so remove it" % verification)
        ca_file, cert_file = props.get("ssl.ca.location"), props.get("ssl.certificate.location")
    return {"ssl_ca_file": ca_file, "ssl_cert_file": cert_file,
            "ssl_key_file": props.get("ssl.key.location") if cert_file else None,
            "ssl_key_password": props.get("ssl.key.password") if cert_file else None}


def properties_to_options(props: dict, dialect="java") -> dict:
    """kafka_metadata's security options (``security_protocol``, ``ssl_*``, ``sasl_*``) for a client's properties
    in ``dialect``'s names (Java's reading also takes librdkafka's file keys and ``sasl.username``/``sasl.password``).

    ssl.* and sasl.* keys count only where the protocol uses them, as in Kafka's clients; keys that do not change the
    connection are ignored. Raises ClientSecurityError naming the property that cannot be honoured (never a secret):
    a store that is not PEM, verification turned off, a SASL mechanism other than PLAIN and SCRAM, any other ssl.* or
    sasl.* key."""
    _check_dialect(dialect)
    protocol = props.get("security.protocol", "PLAINTEXT").strip().upper()
    if protocol not in SECURITY_PROTOCOLS:
        raise ClientSecurityError("security.protocol %s is not one of %s" % (protocol, ", ".join(SECURITY_PROTOCOLS)))
    options = {"security_protocol": protocol}
    honoured = {}
    if uses_tls(protocol):
        options.update(_ssl_options(props, dialect))
        honoured["ssl."] = _READ_KEYS[dialect]["ssl."]
    if uses_sasl(protocol):
        options.update(_sasl_options(props, dialect))
        honoured["sasl."] = _READ_KEYS[dialect]["sasl."]
    unknown = sorted(key for key in props if key.startswith(tuple(honoured))
                     and key not in honoured[key.split(".", 1)[0] + "."])
    if unknown:
        raise ClientSecurityError("%s: the doctor cannot honour %s; check with a copy of the file without %s"
                                  % (", ".join(unknown), "this setting" if len(unknown) == 1 else "these settings",
                                     "it" if len(unknown) == 1 else "them"))
    return {key: value for key, value in options.items() if value is not None}


# ---------------------------------------------------------------------------------- the client_config role's settings


#: the Java client keys the client_config role writes from its own variables (and ``security.protocol``)
MANAGED_CLIENT_KEYS = ("bootstrap.servers", "security.protocol", "retries", "delivery.timeout.ms", "acks",
                       "enable.idempotence", "auto.offset.reset")
#: librdkafka's other names for managed keys (its file writes message.send.max.retries and message.timeout.ms)
LIBRDKAFKA_ALIASES = ("metadata.broker.list", "message.send.max.retries", "message.timeout.ms",
                      "request.required.acks")
#: Kafka 4's defaults of the keys delivery.timeout.ms must cover, unless the extra properties set them
KAFKA_CLIENT_DEFAULTS = {"linger.ms": 5, "request.timeout.ms": 30000}
_PROPERTY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _whole_number(value, name, errors):
    """``value`` as an int (an int or its digits as text, as Jinja's ``int`` reads them), else None with an error."""
    if not isinstance(value, bool):
        try:
            return int(str(value).strip())
        except ValueError:
            pass
    errors.append("%s must be a whole number (got %s)" % (name, json.dumps(value, default=str)))
    return None


#: what Ansible's ``bool`` filter reads as true (ansible.module_utils.parsing.convert_bool.BOOLEANS_TRUE; the doctor
#: imports this module without ansible-core, so the set is restated, not imported)
_BOOLEANS_TRUE = frozenset(("y", "yes", "on", "1", "true", "t", 1, 1.0, True))


def _is_true(value) -> bool:
    """Whether ``value`` is true as Ansible's ``bool`` filter reads it (anything else is false)."""
    return (value.strip().lower() if isinstance(value, str) else value) in _BOOLEANS_TRUE


def _delivery_timeout_errors(settings, extra, errors):
    """Kafka's rule delivery.timeout.ms >= linger.ms + request.timeout.ms, over the role's setting and the extras."""
    delivery = _whole_number(settings.get("delivery_timeout_ms"), "client_config_delivery_timeout_ms", errors)
    bounds = [_whole_number(extra.get(key, default), "client_config_extra_properties['%s']" % key, errors)
              for key, default in KAFKA_CLIENT_DEFAULTS.items()]
    if delivery is not None and None not in bounds and delivery < sum(bounds):
        errors.append("client_config_delivery_timeout_ms (%d) must be at least linger.ms + request.timeout.ms "
                      "(%d + %d): raise it, or lower those in client_config_extra_properties"
                      % (delivery, bounds[0], bounds[1]))


def _extra_properties_errors(name, extra, reserved, errors):
    """The rules over one mapping of further properties: plain names, one-line values, no key the role writes."""
    if not isinstance(extra, dict):
        errors.append("%s must be a mapping of property names to values (got %s)" % (name, type(extra).__name__))
        return
    bad = [str(key) for key in extra if not _PROPERTY_NAME.fullmatch(str(key))]
    if bad:
        errors.append("%s: property names must be plain (a letter or digit, then letters, digits, '.', '_' or '-'), "
                      "not %s" % (name, json.dumps(bad)))
    multiline = [str(key) for key, value in extra.items() if isinstance(value, str) and re.search(r"[\r\n]", value)]
    if multiline:
        errors.append("%s: values must be one line (not so: %s)" % (name, ", ".join(multiline)))
    taken = [str(key) for key in extra if key in reserved]
    if taken:
        errors.append("%s may not set %s, which the role writes: use its client_config_* variables "
                      "(client_config_client_security for TLS and SASL)" % (name, ", ".join(taken)))


def client_settings_errors(settings, security) -> list:
    """What is wrong with the client_config role's ``settings`` (its variables without the ``client_config_`` prefix:
    ``retries``, ``delivery_timeout_ms``, ``acks``, ``enable_idempotence``, ``extra_properties``,
    ``librdkafka_extra_properties``) for a listener whose security options are ``security`` (as
    :func:`listener_options` gives them), one message per broken rule naming the variable and the way out; empty when
    the role may write its files. Messages name keys, never a value of the security options or the extras' values.

    Raises ClientSecurityError when ``security`` cannot be written (:func:`options_to_properties`)."""
    errors = []
    retries = _whole_number(settings.get("retries"), "client_config_retries", errors)
    if retries is not None and retries < 0:
        errors.append("client_config_retries must be 0 or more (got %d): leave it at its default, which "
                      "client_config_delivery_timeout_ms bounds" % retries)
    if _is_true(settings.get("enable_idempotence")):
        if retries is not None and retries <= 0:
            errors.append("the idempotent producer (client_config_enable_idempotence) needs client_config_retries "
                          "above 0: raise it, or set client_config_enable_idempotence false")
        if str(settings.get("acks")) not in ("all", "-1"):
            errors.append("the idempotent producer (client_config_enable_idempotence) needs client_config_acks all "
                          "(got %s): set it, or set client_config_enable_idempotence false" % settings.get("acks"))
    extra = settings.get("extra_properties") or {}
    librdkafka_extra = settings.get("librdkafka_extra_properties") or {}
    _delivery_timeout_errors(settings, extra if isinstance(extra, dict) else {}, errors)
    # the TLS and SASL keys are the role's only where it writes them (from client_config_client_security)
    _extra_properties_errors("client_config_extra_properties", extra,
                             MANAGED_CLIENT_KEYS + tuple(options_to_properties(security, "java")), errors)
    _extra_properties_errors("client_config_librdkafka_extra_properties", librdkafka_extra,
                             MANAGED_CLIENT_KEYS + LIBRDKAFKA_ALIASES
                             + tuple(options_to_properties(security, "librdkafka")), errors)
    return errors
