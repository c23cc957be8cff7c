"""Placeholder until written."""


def main_pages(world):
    return []
