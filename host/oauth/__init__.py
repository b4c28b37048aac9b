"""The OAuth authorization server on HTTP: the SDK's routes over the domain's flows."""
