"""Booking task templates: one template per module, found and loaded by `officegym.tasks.registry`."""
