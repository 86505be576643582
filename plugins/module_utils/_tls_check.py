# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Which host names a TLS certificate names, whether it names a given host, and why a handshake was not verified.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Certificates (DER, or PEM around it) are read with ``cryptography`` where it is installed (ansible-core brings it
to every controller); managed nodes may lack it, so the standard library fallback is a small DER walker that reads
only what a Kafka client's host name check reads - the subjectAltName extension's DNS names and IP addresses, the
subject's common name, and the validity dates. Both give the same answers (the unit tests feed both).

Host matching follows what Kafka's clients do with ``ssl.endpoint.identification.algorithm=https`` (Java's
HostnameChecker, and OpenSSL's X509_check_host for librdkafka): an IP literal must be one of the certificate's IP
addresses; a DNS name must match one of its DNS names (``*`` only as the whole left-most label, matching exactly
one label), and the common name counts only when the certificate has no DNS names at all.
"""

from __future__ import annotations

import base64
import datetime
import functools
import ipaddress
import re
import socket
import ssl
import time


@functools.lru_cache(maxsize=None)  # noqa: UP033 - functools.cache is 3.9+, managed nodes may run 3.8
def _x509():
    """cryptography's x509 module, or None on a managed node without it (the DER walker below reads certificates then).

    Imported on first use, not with this file: the import takes a few tenths of a second, and most runs of the
    modules that import this file read no certificate.
    """
    try:
        from cryptography import x509
    except ImportError:
        return None
    return x509


_OID_COMMON_NAME = bytes.fromhex("550403")  # 2.5.4.3
_OID_SUBJECT_ALT_NAME = bytes.fromhex("551d11")  # 2.5.29.17
_PEM_CERTIFICATE = re.compile(
    r"-----BEGIN CERTIFICATE-----\s*(.+?)\s*-----END CERTIFICATE-----", re.DOTALL)

#: OpenSSL verify codes (X509_V_ERR_*) and the outcome each one means for a Kafka client.
_VERIFY_OUTCOMES = {
    2: "unknown_ca",    # unable to get issuer certificate
    18: "unknown_ca",   # self-signed certificate
    19: "unknown_ca",   # self-signed certificate in chain
    20: "unknown_ca",   # unable to get local issuer certificate
    21: "unknown_ca",   # unable to verify the first certificate
    9: "not_yet_valid",
    10: "expired",
    62: "name_mismatch",  # hostname mismatch
    64: "name_mismatch",  # IP address mismatch
}


class CertificateError(ValueError):
    """The bytes are not a certificate this reader understands; the message says where it stopped."""


def _tlv(data, pos):
    """(tag, start of value, end of value) of the DER element at ``pos``."""
    if pos + 2 > len(data):
        raise CertificateError("truncated DER element at byte %d" % pos)
    tag = data[pos]
    length = data[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        if count == 0 or count > 4 or pos + count > len(data):
            raise CertificateError("unsupported DER length at byte %d" % pos)
        length = int.from_bytes(data[pos:pos + count], "big")
        pos += count
    if pos + length > len(data):
        raise CertificateError("DER element at byte %d runs past the end" % pos)
    return tag, pos, pos + length


def _children(data, start, end):
    """The (tag, start, end) of each element inside ``data[start:end]``."""
    items = []
    pos = start
    while pos < end:
        tag, value_start, value_end = _tlv(data, pos)
        items.append((tag, value_start, value_end))
        pos = value_end
    return items


def _time(data, tag, start, end):
    text = data[start:end].decode("ascii")
    if tag == 0x17:  # UTCTime YYMMDDHHMMSSZ
        year = int(text[:2])
        text = ("19" if year >= 50 else "20") + text
    return datetime.datetime.strptime(text, "%Y%m%d%H%M%SZ").replace(tzinfo=datetime.timezone.utc)  # noqa: UP017 - datetime.UTC is 3.11+


def certificate_info(der):
    """{"dns_names", "ip_addresses", "common_name", "not_before", "not_after"} of one DER certificate.

    Dates are aware UTC datetimes. Raises CertificateError when ``der`` is not an X.509 certificate.
    """
    return _read_with_cryptography(der) if _x509() is not None else _read_der(der)


def _read_with_cryptography(der):
    x509 = _x509()
    try:
        cert = x509.load_der_x509_certificate(bytes(der))
        common_names = cert.subject.get_attributes_for_oid(x509.oid.NameOID.COMMON_NAME)
        try:
            alt_names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        except x509.ExtensionNotFound:
            alt_names = x509.SubjectAlternativeName([])
        return {"dns_names": alt_names.get_values_for_type(x509.DNSName),
                "ip_addresses": [str(ip) for ip in alt_names.get_values_for_type(x509.IPAddress)],
                # the last common name, as the DER walker keeps it
                "common_name": common_names[-1].value if common_names else None,
                "not_before": _utc(cert, "not_valid_before"), "not_after": _utc(cert, "not_valid_after")}
    except (ValueError, x509.DuplicateExtension) as exc:
        raise CertificateError("not an X.509 certificate this reader understands: %s" % exc) from None


def _utc(cert, name):
    """An aware UTC validity date: ``*_utc`` since cryptography 42, naive UTC before."""
    value = getattr(cert, name + "_utc", None)
    return value if value is not None else getattr(cert, name).replace(tzinfo=datetime.timezone.utc)  # noqa: UP017


def _read_der(der):
    data = bytes(der)
    try:
        _tag, cert_start, cert_end = _tlv(data, 0)
        tbs_tag, tbs_start, tbs_end = _children(data, cert_start, cert_end)[0]
        fields = _children(data, tbs_start, tbs_end)
        if tbs_tag != 0x30 or len(fields) < 6:
            raise CertificateError("not an X.509 certificate")
        if fields[0][0] == 0xA0:  # explicit version
            fields = fields[1:]
        validity = _children(data, fields[3][1], fields[3][2])
        subject = fields[4]
        info = {"dns_names": [], "ip_addresses": [], "common_name": None,
                "not_before": _time(data, *validity[0]), "not_after": _time(data, *validity[1])}
        for _set_tag, set_start, set_end in _children(data, subject[1], subject[2]):
            for _seq, seq_start, seq_end in _children(data, set_start, set_end):
                oid, value = _children(data, seq_start, seq_end)[:2]
                if data[oid[1]:oid[2]] == _OID_COMMON_NAME:
                    info["common_name"] = data[value[1]:value[2]].decode("utf-8", "replace")
        for tag, start, end in fields[6:]:
            if tag != 0xA3:  # [3] extensions
                continue
            extensions = _children(data, start, end)[0]
            for _ext, ext_start, ext_end in _children(data, extensions[1], extensions[2]):
                parts = _children(data, ext_start, ext_end)
                if data[parts[0][1]:parts[0][2]] != _OID_SUBJECT_ALT_NAME:
                    continue
                octets = parts[-1]
                names = _tlv(data, octets[1])
                for name_tag, name_start, name_end in _children(data, names[1], names[2]):
                    if name_tag == 0x82:  # dNSName
                        info["dns_names"].append(data[name_start:name_end].decode("ascii", "replace"))
                    elif name_tag == 0x87 and name_end - name_start in (4, 16):  # iPAddress
                        info["ip_addresses"].append(str(ipaddress.ip_address(data[name_start:name_end])))
    except (IndexError, ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, CertificateError):
            raise
        raise CertificateError("not an X.509 certificate this reader understands: %s" % exc) from None
    return info


def pem_certificates(text):
    """The DER bytes of every ``CERTIFICATE`` block in PEM ``text`` (str), in order."""
    return [base64.b64decode("".join(block.split())) for block in _PEM_CERTIFICATE.findall(text)]


def certificate_names(info):
    """The names a client checks, for messages: the DNS names and IPs, else the common name."""
    names = list(info["dns_names"]) + list(info["ip_addresses"])
    if not info["dns_names"] and info["common_name"]:
        names.append("CN=" + info["common_name"])
    return names


def _ip(host):
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def _dns_matches(pattern, host):
    pattern = pattern.rstrip(".").lower()
    host = host.rstrip(".").lower()
    if pattern == host:
        return True
    labels = pattern.split(".")
    if labels[0] != "*" or len(labels) < 3 or "*" in ".".join(labels[1:]):
        return False  # a wildcard needs at least two labels after it, as browsers and Java require
    host_labels = host.split(".")
    return len(host_labels) == len(labels) and host_labels[0] != "" and host_labels[1:] == labels[1:]


def names_host(info, host):
    """True when a certificate with ``info`` (:func:`certificate_info`) is valid for ``host`` (name or IP)."""
    address = _ip(host)
    if address is not None:
        return any(_ip(value) == address for value in info["ip_addresses"])
    patterns = info["dns_names"] or ([info["common_name"]] if info["common_name"] else [])
    return any(_dns_matches(pattern, host) for pattern in patterns)


def verification_outcome(exc):
    """``(outcome, text)`` for a failed TLS handshake: outcome is ``unknown_ca``, ``expired``, ``not_yet_valid``,
    ``name_mismatch`` or ``handshake_failed``; text is OpenSSL's reason."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return _VERIFY_OUTCOMES.get(exc.verify_code, "handshake_failed"), str(exc.verify_message or exc)
    return "handshake_failed", str(exc)


OUTCOME_TEXT = {
    "unknown_ca": "the certificate does not chain to the CA given (unknown CA)",
    "expired": "the certificate has expired",
    "not_yet_valid": "the certificate is not valid yet",
    "name_mismatch": "the host is not among the certificate's names",
    "handshake_failed": "the TLS handshake failed",
}


def describe_outcome(outcome, reason, host, info=None, now=None):
    """One sentence for a failed verification of ``host``; with the peer's certificate ``info``, its names and
    dates."""
    text = "%s: %s (%s)" % (host, OUTCOME_TEXT.get(outcome, outcome), reason)
    if info is not None:
        names = certificate_names(info)
        text += "; the certificate names %s" % (", ".join(names) if names else "nothing")
        if outcome in ("expired", "not_yet_valid"):
            text += ", valid %s to %s" % (info["not_before"].strftime("%Y-%m-%d %H:%M:%SZ"),
                                          info["not_after"].strftime("%Y-%m-%d %H:%M:%SZ"))
        elif now is not None and info["not_after"] < now:
            text += ", expired %s" % info["not_after"].strftime("%Y-%m-%d")
    return text


def peer_certificate_info(peer, server_hostname, deadline):
    """:func:`certificate_info` of the certificate ``peer`` ((address, port)) presents, read over a handshake that
    verifies nothing (only to name what a failed verification saw); None when it cannot be read by ``deadline``."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or peer[0] is None:
            return None
        with socket.create_connection(peer, timeout=remaining) as raw, \
                context.wrap_socket(raw, server_hostname=server_hostname) as tls:
            der = tls.getpeercert(binary_form=True)
        return certificate_info(der) if der else None
    except (OSError, ssl.SSLError, CertificateError):
        return None
