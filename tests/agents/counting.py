"""The counting proxy of the agents' conformance check, for the tests (see
`agents.conformance`)."""

from agents.conformance import Counter, CountingState  # noqa: F401
