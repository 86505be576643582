# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""_client_security: the protocol set and its predicates, the client options <-> properties conversion in both
dialects, and the errors of each direction (naming the option or property, never a secret)."""

from __future__ import annotations

import pytest

from ansible_collections.kafkaops.listeners.plugins.module_utils._client_security import (
    SASL_OPTIONS,
    SECURITY_PROTOCOLS,
    SSL_OPTIONS,
    ClientSecurityError,
    client_settings_errors,
    listener_options,
    options_to_properties,
    properties_to_options,
    protocol_of,
    protocol_options,
    uses_sasl,
    uses_tls,
    uses_tls_or_sasl,
)

SECRET = 'se"cr\\et pw'
CA, CERT, KEY = "/etc/kafka/tls/ca.pem", "/etc/kafka/tls/client.pem", "/etc/kafka/tls/client.key"
# options each dialect can write and read back unchanged: Java clients read the key from the certificate's file
TLS = {"java": {"ssl_ca_file": CA, "ssl_cert_file": CERT, "ssl_key_password": SECRET},
       "librdkafka": {"ssl_ca_file": CA, "ssl_cert_file": CERT, "ssl_key_file": KEY, "ssl_key_password": SECRET}}
SASL = {"sasl_mechanism": "SCRAM-SHA-512", "sasl_username": 'app "one"\\', "sasl_password": SECRET}


def test_the_protocol_set_and_its_predicates():
    assert SECURITY_PROTOCOLS == ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
    assert [p for p in SECURITY_PROTOCOLS if uses_tls(p)] == ["SSL", "SASL_SSL"]
    assert [p for p in SECURITY_PROTOCOLS if uses_sasl(p)] == ["SASL_PLAINTEXT", "SASL_SSL"]
    assert [p for p in SECURITY_PROTOCOLS if uses_tls_or_sasl(p)] == ["SSL", "SASL_PLAINTEXT", "SASL_SSL"]
    # listener names that are no protocol (Kafka's implicit controller mapping asks this of names) use neither
    assert not any(check(name) for check in (uses_tls, uses_sasl, uses_tls_or_sasl)
                   for name in ("CONTROLLER", "ssl", None))
    assert [protocol_of(uses_tls(p), uses_sasl(p)) for p in SECURITY_PROTOCOLS] == list(SECURITY_PROTOCOLS)
    assert protocol_options("SASL_SSL") == SSL_OPTIONS + SASL_OPTIONS
    assert protocol_options("SSL") == SSL_OPTIONS and protocol_options("PLAINTEXT") == ()


@pytest.mark.parametrize("dialect", ["java", "librdkafka"])
@pytest.mark.parametrize("protocol", SECURITY_PROTOCOLS)
def test_options_round_trip_through_client_properties(protocol, dialect):
    options = {"security_protocol": protocol}
    if uses_tls(protocol):
        options.update(TLS[dialect])
    if uses_sasl(protocol):
        options.update(SASL)
    props = options_to_properties(options, dialect)
    assert "security.protocol" not in props
    assert properties_to_options(dict(props, **{"security.protocol": protocol}), dialect) == options


def test_the_properties_each_dialect_writes():
    options = dict(SASL, security_protocol="SASL_SSL", ssl_ca_file=CA)
    assert options_to_properties(options) == {
        "ssl.endpoint.identification.algorithm": "https", "ssl.truststore.type": "PEM",
        "ssl.truststore.location": CA, "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                            'username="app \\"one\\"\\\\" password="se\\"cr\\\\et pw";'}
    assert options_to_properties(options, "librdkafka") == {
        "ssl.endpoint.identification.algorithm": "https", "enable.ssl.certificate.verification": "true",
        "ssl.ca.location": CA, "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": 'app "one"\\',
        "sasl.password": SECRET}
    # settings of a protocol not in use are not written
    assert options_to_properties(dict(options, security_protocol="PLAINTEXT")) == {}


def test_oauthbearer_writes_the_mechanism_only_and_is_not_read_back():
    options = {"security_protocol": "SASL_SSL", "sasl_mechanism": "OAUTHBEARER", "sasl_oauthbearer_token": SECRET}
    assert options_to_properties(options) == {"ssl.endpoint.identification.algorithm": "https",
                                              "sasl.mechanism": "OAUTHBEARER"}
    assert options_to_properties(options, "librdkafka")["sasl.mechanisms"] == "OAUTHBEARER"
    with pytest.raises(ClientSecurityError, match="sasl.mechanisms OAUTHBEARER is not supported"):
        properties_to_options({"security.protocol": "SASL_SSL", "sasl.mechanisms": "OAUTHBEARER"}, "librdkafka")


@pytest.mark.parametrize("options, dialect, message", [
    ({"security_protocol": "SSL", "ssl_key_file": KEY}, "java", "ssl_key_file and ssl_key_password need ssl_cert_file"),
    ({"security_protocol": "SSL", "ssl_key_password": SECRET}, "librdkafka", "need ssl_cert_file"),
    ({"security_protocol": "SSL", "ssl_cert_file": CERT, "ssl_key_file": KEY}, "java",
     "one PEM file .ssl.keystore.location.*drop ssl_key_file"),
    ({"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "GSSAPI"}, "java",
     "SASL mechanisms OAUTHBEARER, PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, not 'GSSAPI'"),
    ({"security_protocol": "SASL_SSL", "sasl_mechanism": "PLAIN", "sasl_username": "u"}, "librdkafka",
     "SASL PLAIN needs sasl_username and sasl_password"),
    ({"security_protocol": "SASL_SSL", "sasl_mechanism": "PLAIN", "sasl_username": "u", "sasl_password": "a\nb"},
     "java", "^sasl_password must be one line$"),
    ({"security_protocol": "SSL"}, "kcat", "dialect must be one of java, librdkafka, not 'kcat'"),
    ("SSL", "java", "expects the mapping kafka_client_security returns"),
])
def test_options_that_cannot_be_written(options, dialect, message):
    with pytest.raises(ClientSecurityError, match=message) as error:
        options_to_properties(options, dialect)
    assert "se\"cr" not in str(error.value)


@pytest.mark.parametrize("props, dialect, message", [
    ({"security.protocol": "TLS"}, "java", "security.protocol TLS is not one of PLAINTEXT, SSL, SASL_PLAINTEXT"),
    ({"security.protocol": "SSL", "ssl.truststore.location": CA}, "java",
     "ssl.truststore.type is JKS; the doctor reads PEM files only"),
    ({"security.protocol": "SSL", "ssl.keystore.type": "PEM", "ssl.keystore.location": CERT,
      "ssl.keystore.password": SECRET}, "java", "ssl.keystore.password is set, but a PEM keystore has no store"),
    ({"security.protocol": "SSL", "ssl.endpoint.identification.algorithm": " "}, "librdkafka",
     "ssl.endpoint.identification.algorithm= turns off host name verification"),
    ({"security.protocol": "SSL", "enable.ssl.certificate.verification": "false"}, "librdkafka",
     "enable.ssl.certificate.verification=false turns off certificate verification"),
    ({"security.protocol": "SSL", "ssl.keystore.location": CERT}, "librdkafka",
     "ssl.keystore.location: the doctor cannot honour this setting"),
    ({"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"}, "librdkafka",
     "sasl.mechanisms is not set, so a librdkafka client would use GSSAPI"),
    ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.username": "u"}, "java",
     "sasl.mechanism PLAIN needs sasl.jaas.config with username and password"),
    ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN", "sasl.password": SECRET}, "librdkafka",
     "sasl.mechanisms PLAIN needs sasl.username and sasl.password"),
    ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
      "sasl.jaas.config": 'x.ScramLoginModule required username="u" password="%s";' % SECRET.replace('"', '\\"')},
     "java", "sasl.jaas.config names x.ScramLoginModule, but sasl.mechanism PLAIN needs PlainLoginModule"),
    ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
      "sasl.jaas.config": 'x.PlainLoginModule required username="u";'}, "java", "sasl.jaas.config has no password"),
    ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
      "sasl.jaas.config": 'x.PlainLoginModule maybe username="u";'}, "java", "'maybe' is not a JAAS control flag"),
    ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN", "sasl.username": "u",
      "sasl.password": SECRET, "sasl.jaas.config": "x"}, "librdkafka",
     "sasl.jaas.config: the doctor cannot honour this setting"),
    ({"security.protocol": "SSL"}, "jks", "dialect must be one of java, librdkafka, not 'jks'"),
])
def test_properties_that_cannot_be_read(props, dialect, message):
    with pytest.raises(ClientSecurityError, match=message) as error:
        properties_to_options(props, dialect)
    assert "cr\\et" not in str(error.value) and "cr\\\\et" not in str(error.value)


def test_a_listeners_options_keep_what_its_protocol_uses():
    settings = dict(SASL, ssl_ca_file=CA)
    assert listener_options("SASL_PLAINTEXT", settings, "EXTERNAL") == dict(SASL, security_protocol="SASL_PLAINTEXT")
    assert listener_options("SSL", settings, "EXTERNAL") == {"security_protocol": "SSL", "ssl_ca_file": CA}
    assert listener_options("PLAINTEXT", dict(settings, ssl_cert_file=None), "X") == {"security_protocol": "PLAINTEXT"}
    with pytest.raises(ClientSecurityError, match="unknown client setting.s. sasl_pasword for listener EXTERNAL"):
        listener_options("SSL", {"sasl_pasword": SECRET}, "EXTERNAL")
    with pytest.raises(ClientSecurityError, match="listener INTERNAL speaks SASL_SSL, but its client settings name no "
                                                  "sasl_mechanism"):
        listener_options("SASL_SSL", {"ssl_ca_file": CA}, "INTERNAL")


# the client_config role's defaults, and a listener's options whose keys the extras may not set
ROLE_DEFAULTS = {"retries": 2147483647, "delivery_timeout_ms": 120000, "acks": "all", "enable_idempotence": True,
                 "extra_properties": {}, "librdkafka_extra_properties": {}}
SCRAM_SSL = dict(SASL, security_protocol="SASL_SSL", ssl_ca_file=CA)


def test_the_role_defaults_break_no_rule():
    assert client_settings_errors(ROLE_DEFAULTS, {"security_protocol": "PLAINTEXT"}) == []
    # as a playbook may give them: numbers as text, booleans as Ansible's bool filter reads them, acks -1
    assert client_settings_errors(dict(ROLE_DEFAULTS, retries="5", delivery_timeout_ms="30005", acks=-1,
                                       enable_idempotence="yes"), SCRAM_SSL) == []
    # the idempotent producer's rules hold only for it
    assert client_settings_errors(dict(ROLE_DEFAULTS, retries=0, acks="1", enable_idempotence="false"),
                                  SCRAM_SSL) == []


@pytest.mark.parametrize("settings, messages", [
    ({"retries": -1, "enable_idempotence": False},
     ["client_config_retries must be 0 or more (got -1): leave it at its default, which "
      "client_config_delivery_timeout_ms bounds"]),
    ({"retries": "many"}, ['client_config_retries must be a whole number (got "many")']),
    ({"retries": 0}, ["the idempotent producer (client_config_enable_idempotence) needs client_config_retries above 0: "
                      "raise it, or set client_config_enable_idempotence false"]),
    ({"acks": "1", "enable_idempotence": "True"},
     ["the idempotent producer (client_config_enable_idempotence) needs client_config_acks all (got 1): set it, or "
      "set client_config_enable_idempotence false"]),
    ({"delivery_timeout_ms": 30004},
     ["client_config_delivery_timeout_ms (30004) must be at least linger.ms + request.timeout.ms (5 + 30000): "
      "raise it, or lower those in client_config_extra_properties"]),
    ({"delivery_timeout_ms": "60000", "extra_properties": {"linger.ms": "100", "request.timeout.ms": 60000}},
     ["client_config_delivery_timeout_ms (60000) must be at least linger.ms + request.timeout.ms (100 + 60000): "
      "raise it, or lower those in client_config_extra_properties"]),
    ({"extra_properties": {"linger.ms": "soon"}},
     ["client_config_extra_properties['linger.ms'] must be a whole number (got \"soon\")"]),
    ({"extra_properties": {"client id": "a", ".x": "b", "ok.key": "c"}, "librdkafka_extra_properties": {"y\n": 1}},
     ["client_config_extra_properties: property names must be plain (a letter or digit, then letters, digits, "
      "'.', '_' or '-'), not [\"client id\", \".x\"]",
      "client_config_librdkafka_extra_properties: property names must be plain (a letter or digit, then letters, "
      "digits, '.', '_' or '-'), not [\"y\\n\"]"]),
    ({"extra_properties": {"client.id": "a\nb", "n": 1}, "librdkafka_extra_properties": {"client.id": "c\r"}},
     ["client_config_extra_properties: values must be one line (not so: client.id)",
      "client_config_librdkafka_extra_properties: values must be one line (not so: client.id)"]),
    ({"extra_properties": {"acks": "1", "sasl.jaas.config": "x", "ssl.truststore.location": CA, "linger.ms": 5},
      "librdkafka_extra_properties": {"message.timeout.ms": 1, "sasl.password": "x", "sasl.jaas.config": "x"}},
     ["client_config_extra_properties may not set acks, sasl.jaas.config, ssl.truststore.location, which the role "
      "writes: use its client_config_* variables (client_config_client_security for TLS and SASL)",
      "client_config_librdkafka_extra_properties may not set message.timeout.ms, sasl.password, which the role "
      "writes: use its client_config_* variables (client_config_client_security for TLS and SASL)"]),
    ({"extra_properties": ["linger.ms=5"]},
     ["client_config_extra_properties must be a mapping of property names to values (got list)"]),
])
def test_each_rule_the_role_settings_break_has_its_message(settings, messages):
    # the librdkafka file's sasl.jaas.config is no key the role writes, so only a Java extra may not set it
    assert client_settings_errors(dict(ROLE_DEFAULTS, **settings), SCRAM_SSL) == messages


def test_tls_and_sasl_keys_are_the_roles_only_where_it_writes_them():
    extra = {"ssl.truststore.location": CA, "sasl.mechanism": "PLAIN"}
    assert client_settings_errors(dict(ROLE_DEFAULTS, extra_properties=extra),
                                  {"security_protocol": "PLAINTEXT"}) == []
    assert client_settings_errors(dict(ROLE_DEFAULTS, extra_properties=extra),
                                  {"security_protocol": "SSL", "ssl_ca_file": CA}) == [
        "client_config_extra_properties may not set ssl.truststore.location, which the role writes: use its "
        "client_config_* variables (client_config_client_security for TLS and SASL)"]


def test_security_options_that_cannot_be_written_are_refused():
    with pytest.raises(ClientSecurityError, match="SASL PLAIN needs sasl_username and sasl_password"):
        client_settings_errors(ROLE_DEFAULTS, {"security_protocol": "SASL_SSL", "sasl_mechanism": "PLAIN"})


@pytest.mark.parametrize("spelling", [True, "yes", "Y", "t", "On", " true ", "1", 1, 1.0])
def test_enable_idempotence_is_read_as_ansibles_bool_filter_reads_it(spelling):
    from ansible.module_utils.parsing.convert_bool import boolean

    assert boolean(spelling, strict=False)  # the filter the role's Jinja used before the rules moved here
    needs_acks_all = ("the idempotent producer (client_config_enable_idempotence) needs client_config_acks all "
                      "(got 1): set it, or set client_config_enable_idempotence false")
    assert client_settings_errors(dict(ROLE_DEFAULTS, acks="1", enable_idempotence=spelling), SCRAM_SSL) == [
        needs_acks_all]
