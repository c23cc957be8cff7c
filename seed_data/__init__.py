"""The world: schema, deterministic generator, world store, clock and diff."""
