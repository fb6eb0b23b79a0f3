"""server_from_config where a config has no such block, or a mistyped one (issue 40): `mapings` in an account
is refused as `nats-server -t` refuses it (before: the account silently had no mappings, `.mappings` was None
and subject_map failed later on a NoneType); an account without a `mappings` block has a table with no rules
(before: None), with which a chain or subject_map leaves every subject as it is, as the server does."""

from __future__ import annotations

import re

import pytest

from subjxform import subject_map
from subjxform.accounts import AccountsConfigError
from subjxform.scopes import server_from_config


def test_a_mistyped_mappings_block_is_refused_with_its_file_and_line(session, tmp_path):
    path = tmp_path / "typo.conf"
    path.write_text('accounts {\n  APP {\n    mapings { "orders.*": "orders.v2.$1" }\n  }\n}\n')
    with pytest.raises(AccountsConfigError, match=re.escape(f'{path}:3: accounts.APP: unknown field "mapings"')):
        server_from_config(session, path, account="APP")


def test_an_account_without_mappings_maps_nothing(session):
    server = server_from_config(session, "accounts { APP { users: [{user: a, password: b}] } }\n", account="APP")
    assert server.mappings == "{}"
    df = session.createDataFrame([("orders.1",)], "subject string")
    assert [r[0] for r in df.select(subject_map("subject", server.mappings)).collect()] == ["orders.1"]
