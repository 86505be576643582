# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Errors of the instance metadata clients.

Private to kafkaops.listeners: no compatibility promise outside the collection.

Every error's ``str()`` is a complete message for the user: it names the provider, the endpoint or request and
what was wrong, so the module can hand it to ``fail_json`` unchanged.
"""

from __future__ import annotations


class MetadataError(Exception):
    """The instance metadata could not be read, or what was read cannot be trusted."""


class ParameterError(MetadataError):
    """An option of the lookup (endpoint, timeouts, provider) is invalid; nothing was contacted."""


class EndpointUnreachable(MetadataError):
    """No HTTP answer: connection refused or reset, or no answer within the timeout."""


class AccessRefused(MetadataError):
    """The metadata service answered but refused access (AWS token refused, HTTP 401/403)."""


class MalformedAnswer(MetadataError):
    """An answer does not have the form the provider documents (status, encoding, JSON/YAML, missing keys)."""


class HeaderCheckFailed(MetadataError):
    """An answer lacks the header the real service always sends (GCP's ``Metadata-Flavor: Google``)."""


class InvalidValue(MetadataError):
    """A value has the right form but is not acceptable (a host that is not a DNS name or IP, an unsafe id)."""
