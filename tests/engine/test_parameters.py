"""Parameters a request leaves out get their spec default (OpenAPI `schema.default`) or
their `x-clamp` default, worked out once when the spec is compiled. Every request is
handed that same value, which is safe only while each default is a scalar: this pins it
for every registered API's spec, so an array or object default fails here first."""

import pytest

from mock_server.apis import APIS, profile
from mock_server.engine.api import Api


@pytest.mark.parametrize("name", sorted(APIS))
def test_absent_parameters_get_scalar_defaults(name):
    chosen = profile(name)
    api = Api(chosen, chosen.config())
    seen = 0
    for op in api.operations:
        for param in op.params:
            assert param.absent is None or isinstance(param.absent, int | str | bool | float), (
                op.operation_id,
                param.name,
                param.absent,
            )
            if param.clamp:
                assert param.absent == param.clamp.get("default"), (op.operation_id, param.name)
            seen += 1
    assert seen > 0
