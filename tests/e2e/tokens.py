"""Kept only for tests/scripts, which imports these token helpers from here; they live in
``tests/support/tokens.py``. Delete this module once tests/scripts imports from there."""

from tests.support.tokens import create_token, token_env  # noqa: F401
