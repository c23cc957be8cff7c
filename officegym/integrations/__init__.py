"""Adapters that expose officegym tasks to other agent frameworks.

`officegym.integrations.browsergym` (extra `officegym[browsergym]`) registers every task
template as the BrowserGym task `browsergym/officegym.<template-id>` when imported.
`officegym.integrations.ray` (extra `officegym[ray]`) runs env pools as Ray actors across a
cluster (`RayEnvPool`).
"""
