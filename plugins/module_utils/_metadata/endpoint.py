# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The metadata endpoint option: ``http://HOST[:PORT]`` and nothing else.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Kept apart from the HTTP client so that checking the option off-cloud does not load any network code.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ansible_collections.kafkaops.listeners.plugins.module_utils._metadata.errors import ParameterError


def parse_endpoint(endpoint: object) -> tuple[str, int]:
    """Return (host, port) of an ``http://HOST[:PORT]`` endpoint; raise ParameterError saying what is wrong."""
    if not isinstance(endpoint, str) or not endpoint:
        raise ParameterError("endpoint %r: expected a URL such as http://169.254.169.254" % (endpoint,))
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError as exc:
        raise ParameterError("endpoint %r: not a valid URL (%s)" % (endpoint, exc)) from None
    if parts.scheme != "http":
        raise ParameterError("endpoint %r: the scheme must be http (metadata services do not use TLS)" % endpoint)
    if not parts.hostname:
        raise ParameterError("endpoint %r: it names no host" % endpoint)
    if parts.username is not None or parts.password is not None:
        raise ParameterError("endpoint %r: credentials in the URL are not allowed" % endpoint)
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ParameterError("endpoint %r: give only http://HOST[:PORT]; the module adds each provider's paths"
                             % endpoint)
    return parts.hostname, port if port is not None else 80
