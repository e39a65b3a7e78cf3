"""Placeholder while the serve commands are written."""


def register(app):
    pass
