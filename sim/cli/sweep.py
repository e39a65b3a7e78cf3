"""Placeholder while the sweep commands are written."""


def register(app):
    pass
